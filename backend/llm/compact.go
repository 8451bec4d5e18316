package llm

// CompactPrompt is the system prompt of the request that asks a model to
// summarise the older part of a session's conversation (the context
// compiler's compaction). The request offers no tools. Scripted servers
// in tests recognise it by this exact text.
const CompactPrompt = `You summarise the older part of a coding agent's conversation, so that the agent can go on working without it.
The agent will see your summary instead of those messages; its file changes and task list are added after your summary by the program, exactly, so do not copy them out.
Write only the summary, in Markdown, with these five sections, in this order, each as a level-2 heading:
## Goal
What the user wants done, in their own terms.
## Decisions
What was decided or learnt, and why: approaches chosen and rejected, facts found about the code.
## Files
The files read or changed, each with its current state and role as far as the conversation tells it.
## Open tasks
What is left to do, in order, and what was being done last.
## User constraints
Every instruction, preference and limit the user gave, in their words where short.
Keep references such as r12 where a tool result will be worth reading again. Be complete but brief: at most about 600 words.
If a summary so far is given, merge it with the new messages into one summary.`
