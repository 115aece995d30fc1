package question

import (
	"testing"
	"time"
)

// TestProseQuestions: the question word and verb form by the answer and
// the relation: "Who wrote", never "Who written"; a person as object is
// asked with "who"; a lower-case program is named as one; "part of" and
// "licensed under" keep their preposition; a line break never reaches a
// question.
func TestProseQuestions(t *testing.T) {
	for _, tc := range []struct{ kind, head, relation, tail, sentence, want string }{
		{"verb", "Lintwerk", "was written by", "Oda Rasmussen", "Lintwerk was originally written and maintained by Oda Rasmussen.", "Who wrote Lintwerk?"},
		{"verb", "Lintwerk", "was taken over by", "", "", ""},
		{"verb", "The Quill Project", "thanks", "Oda Rasmussen", "The Quill Project thanks Oda Rasmussen.", "Who does the Quill Project thank?"},
		{"copula", "fzq", "is", "a small and fast command-line search tool", "fzq is a small and fast command-line search tool.", "What is `fzq`?"},
		{"copula", "libquill2", "is", "an XML toolkit", "libquill2 is an XML toolkit.", "What is libquill2?"},
		{"copula", "GNU Quill", "is part of", "the GNU Operating System", "GNU Quill is part of the GNU Operating System.", "What is GNU Quill part of?"},
		{"verb", "Lintwerk", "is licensed under", "the Apache License", "Lintwerk is licensed under the Apache License.", "What is Lintwerk licensed under?"},
		{"verb", "Lintwerk", "is written in", "C", "Lintwerk is written in C.", "What is Lintwerk written in?"},
		{"verb", "The plant", "was built in", "Trondheim", "The plant was built in Trondheim.", "Where was the plant built?"},
		{"verb", "The Quill\ndistribution", "includes", "6 tools", "The Quill\ndistribution includes 6 tools.", "How many tools does the Quill distribution include?"},
	} {
		got, ok := SingleFor(tc.kind, tc.head, tc.relation, tc.tail, tc.sentence, tc.sentence, time.Time{})
		if tc.want == "" {
			if ok {
				t.Errorf("%s %q: got %q, want none", tc.relation, tc.head, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("%s (%s | %s | %s) = %q, %v; want %q", tc.kind, tc.head, tc.relation, tc.tail, got, ok, tc.want)
		}
	}
}
