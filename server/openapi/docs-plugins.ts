// Swagger UI plugins for /docs. They reach the page through `uiConfig`, which writes each function out as its
// source text, so each is self-contained: it uses nothing of this module but type declarations.

declare const SwaggerUIBundle: { plugins: { DownloadUrl: (system: unknown) => object } };

interface ReactLike {
  createElement(type: unknown, props: object | null, ...children: unknown[]): unknown;
}

interface ResponseBodyProps {
  content?: unknown;
  contentType?: string;
  getComponent: (name: string, container?: boolean) => unknown;
}

/** Swagger UI's own plugin that loads the document from its URL: a `plugins` setting replaces the list that holds it. */
export function downloadUrl(system: unknown): object {
  return SwaggerUIBundle.plugins.DownloadUrl(system);
}

/** Shows JSON numbers as written: Swagger UI's pretty-print would round an id beyond 2^53 to another plant's. */
export function exactJsonResponses(): object {
  const rawJSON = (JSON as JSON & { rawJSON?: (text: string) => unknown }).rawJSON;
  const exactly = (text: string): string =>
    JSON.stringify(
      JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
        typeof value === 'number' && rawJSON && context?.source !== undefined ? rawJSON(context.source) : value,
      ),
      null,
      '  ',
    );
  return {
    wrapComponents: {
      responseBody:
        (Original: unknown, { React }: { React: ReactLike }) =>
        (props: ResponseBodyProps) => {
          if (!rawJSON || typeof props.content !== 'string' || !/json/i.test(props.contentType ?? ''))
            return React.createElement(Original, props);
          let text: string;
          try {
            text = exactly(props.content);
          } catch {
            return React.createElement(Original, props);
          }
          const code = { language: 'json', downloadable: true, fileName: `response_${Date.now()}.json`, canCopy: true };
          return React.createElement(
            'div',
            null,
            React.createElement('h5', null, 'Response body'),
            React.createElement(props.getComponent('HighlightCode', true), code, text),
          );
        },
    },
  };
}
