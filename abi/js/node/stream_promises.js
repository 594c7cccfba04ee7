// node:stream/promises for a mcpwasm guest.
import { promises } from "./stream.js";
export const { pipeline, finished } = promises;
export default promises;
