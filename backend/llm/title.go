package llm

// TitlePrompt is the system prompt of the request that asks a session's
// model for a title once the session's first run has ended. The request
// offers no tools and holds this prompt and one user message with the
// conversation's start. Test servers recognise title requests by it
// (providertest.IsTitle), so scripted conversations need not answer them.
const TitlePrompt = "You name conversations. Reply with a short title for the conversation below: " +
	"at most six words, in the language of the user's message, saying what the user wants done. " +
	"Reply with the title alone, on one line, without quotes or a full stop."
