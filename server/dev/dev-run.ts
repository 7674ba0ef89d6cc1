import { assertDataFree, devFolder, forgetMongoUri, keptDevToken, recordMongoUri } from './dev-folder.js';
import { resolveMongo } from './mongo-source.js';
import { devTokenBanner } from './token-banner.js';

// What a development run adds (never loaded in production): the embedded MongoDB on the
// development data folder, and a development token kept there.

export interface RunningMongo {
  uri: string;
  description: string;
  stop(): Promise<void>;
}

export async function startDevMongo(devDir: string, dbName: string): Promise<RunningMongo> {
  const folder = devFolder(devDir);
  await assertDataFree(folder);
  const mongo = await resolveMongo({
    uri: undefined,
    warn: (message) => {
      console.warn(message);
    },
    dbPath: folder.mongodData,
    dbName,
  });
  const stop = async () => {
    await mongo.stop();
    await forgetMongoUri(folder, mongo.uri);
  };
  try {
    await recordMongoUri(folder, mongo.uri);
  } catch (error) {
    await stop();
    throw error;
  }
  console.log(
    `MongoDB: ${mongo.uri} (${mongo.description}), data kept in ${folder.mongodData}; to start empty, stop the ` +
      `service and remove ${folder.path}`,
  );
  return { uri: mongo.uri, description: mongo.description, stop };
}

export async function devToken(devDir: string): Promise<{ token: string; banner: (address: string) => string }> {
  const folder = devFolder(devDir);
  const token = await keptDevToken(folder);
  return { token, banner: (address) => devTokenBanner(address, token, folder.tokenFile) };
}
