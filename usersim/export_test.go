package usersim

// Test helpers shared with the external test package.
var (
	EntitiesForTest    = entities
	StripForTest       = strip
	WordsForTest       = words
	NonNativeForTest   = nonNative
	ChoiceWordsForTest = choiceWords
)
