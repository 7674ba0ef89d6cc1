// `npm run mongod:download`: fetches a real mongod into mongodb-memory-server's cache (its version,
// mirror and folder follow the MONGOMS_* variables). The embedded MongoDB uses it from then on.
import { downloadMongod } from './embedded-mongo.js';

try {
  console.log(`mongod is at ${await downloadMongod()}: npm start, npm run dev and npm test now use it`);
} catch (error) {
  console.error(`mongod could not be downloaded: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
