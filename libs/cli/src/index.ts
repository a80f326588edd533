export { cliOptionsOf, CliOptionTable, type CliOption, type CliOptionMatch } from './binding/cli-options';
export { bindArguments, type StdinReader } from './binding/argument-binder';
export { readWord, expectedOf, type ParsedWord, type WordProblem } from './binding/value-parser';
export { didYouMean } from './binding/did-you-mean';
export { CliUsageError, type CliUsageProblem } from './errors/cli-usage.error';
export { describeTool, type CliToolSummary, type HelpTextOptions } from './help/help-text';
export { formatList, formatListLine, firstSentence, type CliListEntry } from './help/list-line';
export { wrap } from './help/text-wrap';
