import { z } from 'zod';

const PORT_NUMBER = { error: 'must be a port number from 0 to 65535' };

/** A TCP port to listen on; 0 lets the system choose a free one. */
export const portNumber = () => z.coerce.number(PORT_NUMBER).int(PORT_NUMBER).min(0, PORT_NUMBER).max(65535, PORT_NUMBER);
