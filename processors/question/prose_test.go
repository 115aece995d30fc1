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

// TestDefinitionNoPublicationMonth: a definition holds whenever it was
// published, so its question carries no publication month; a role or a
// named value does, and a definition's own date stays.
func TestDefinitionNoPublicationMonth(t *testing.T) {
	asOf := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ head, tail, sentence, want string }{
		{"Velorin", "a treatment for hypertension", "Velorin, a treatment for hypertension, sells well.", "What is Velorin?"},
		{"Quillpad", "an open-source editor", "Quillpad is an open-source editor.", "What is Quillpad?"},
		{"Fjordline's largest warehouse", "Lonevåg", "Fjordline's largest warehouse is Lonevåg.", "What is Fjordline's largest warehouse as of March 2024?"},
	} {
		got, ok := SingleFor("copula", tc.head, "is", tc.tail, tc.sentence, tc.sentence, asOf)
		if !ok || got != tc.want {
			t.Errorf("%s is %s: %q, %v; want %q", tc.head, tc.tail, got, ok, tc.want)
		}
	}
}
