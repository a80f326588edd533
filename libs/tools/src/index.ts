export { ToolMethods } from './tool.methods';
