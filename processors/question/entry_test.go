package question

import (
	"slices"
	"testing"

	"github.com/robustream/robustream/schemas"
)

// TestEntryQuestion: a reference entry is asked for its term by what it
// does, the verb agreeing with "which option" (and each verb coordinated
// with it); the term's other names are accepted answers.
func TestEntryQuestion(t *testing.T) {
	chunk := "## OPTIONS\n\n-f\n\n--force\n\nAllow packing otherwise ignored files.\n\n-q, --quiet\n\nPrint no messages and exit.\n"
	for _, tc := range []struct {
		head, relation, tail, sentence, want string
		aliases                              []string
	}{
		{"Allow packing otherwise ignored files", "option of quill-pack", "--force", "-f\n\n--force\n\nAllow packing otherwise ignored files.",
			"Which option of quill-pack allows packing otherwise ignored files?", []string{"-f"}},
		{"Print no messages and exit", "option", "--quiet", "-q, --quiet\n\nPrint no messages and exit.",
			"Which option prints no messages and exits?", []string{"-q"}},
		{"Interactively choose hunks of the patch", "option", "--quiet", "-q, --quiet\n\nPrint no messages and exit.",
			"Which option interactively chooses hunks of the patch?", []string{"-q"}},
		{"Read queries from a file, one per line, and output the number of matches", "option", "--quiet", "-q, --quiet\n\nPrint no messages and exit.",
			"Which option reads queries from a file, one per line, and outputs the number of matches?", []string{"-q"}},
	} {
		q, why := Build(&schemas.Triplet{TripletID: "t", ChunkID: "c", Head: tc.head, Relation: tc.relation, Tail: tc.tail,
			Kind: kindEntry, SourceSentence: tc.sentence, ChunkText: chunk})
		if q == nil {
			t.Errorf("%q: not asked (%s)", tc.head, why)
			continue
		}
		if q.Question != tc.want || q.Answer != tc.tail || !slices.Equal(q.Aliases, tc.aliases) {
			t.Errorf("%q: got %q → %q %v, want %q → %q %v", tc.head, q.Question, q.Answer, q.Aliases, tc.want, tc.tail, tc.aliases)
		}
	}
	// Only the term lines name aliases: not an option the description
	// mentions, nor a Markdown list's marker.
	for _, tc := range []struct {
		sentence, answer string
		want             []string
	}{
		{"-P, --pickaxe-regex\n\nTreat the <string> given to -S as an extended POSIX regular expression.", "--pickaxe-regex", []string{"-P"}},
		{"- `--dry-run`: Print the files to remove.", "--dry-run", nil},
		{"-q, --quiet   Print no messages and exit -x.", "-q", []string{"--quiet"}},
	} {
		if got := entryAliases(tc.sentence, tc.answer); !slices.Equal(got, tc.want) {
			t.Errorf("entryAliases(%q) = %v, want %v", tc.sentence, got, tc.want)
		}
	}
	// The term in the question gives the answer away: not asked, in any
	// form ("deduplication" for --deduplicate).
	if q, _ := Build(&schemas.Triplet{TripletID: "t", ChunkID: "c", Head: "Control the deduplication of results", Relation: "option",
		Tail: "--deduplicate", Kind: kindEntry, SourceSentence: "--deduplicate\n\nControl the deduplication of results.", ChunkText: "--deduplicate\n\nControl the deduplication of results.\n"}); q != nil {
		t.Errorf("asked %q, whose answer its words give", q.Question)
	}
	if q, _ := Build(&schemas.Triplet{TripletID: "t", ChunkID: "c", Head: "Enable file locking when editing files", Relation: "option",
		Tail: "--locking", Kind: kindEntry, SourceSentence: "--locking\n\nEnable file locking when editing files.", ChunkText: "--locking\n\nEnable file locking when editing files.\n"}); q != nil {
		t.Errorf("asked %q, whose answer its words give", q.Question)
	}
}
