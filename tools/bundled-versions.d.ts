/** The part of esbuild's metafile read here: the paths of the files it bundled. */
export interface BundleInputs {
  inputs: Record<string, unknown>;
}

export function bundledVersions(metafile: BundleInputs, packageNames: readonly string[], root: string): Record<string, string[]>;

export function untestedBundledVersions(bundled: Record<string, string[] | undefined>, tested: Record<string, string>): string[];
