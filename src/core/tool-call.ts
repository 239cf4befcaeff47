/** A model's request to call a tool. `args` may be an object or the JSON text of one. */
export interface ToolCall {
  id?: string;
  name: string;
  args?: unknown;
}
