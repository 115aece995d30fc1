package perturb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSentenceSpans(t *testing.T) {
	f := func(text string, want ...string) {
		t.Helper()
		var got []string
		var joined strings.Builder
		for _, s := range sentenceSpans(text) {
			got = append(got, strings.TrimSpace(text[s[0]:s[1]]))
			joined.WriteString(text[s[0]:s[1]])
		}
		if !slices.Equal(got, want) {
			t.Errorf("sentences of %q = %q, want %q", text, got, want)
		}
		if joined.String() != text {
			t.Errorf("spans of %q do not cover the text: %q", text, joined.String())
		}
	}
	f("")
	f("One sentence without end", "One sentence without end")
	f("Revenue was $4.2 billion. Margins fell! Why? Nobody knows.",
		"Revenue was $4.2 billion.", "Margins fell!", "Why?", "Nobody knows.")
	f("Acme Corp. hired Dr. J. Smith in Jan. 2025. He starts soon.",
		"Acme Corp. hired Dr. J. Smith in Jan. 2025.", "He starts soon.")
	f(`He said "it grew." Then he left.`, `He said "it grew."`, "Then he left.")
	f("| Q3 | 4.2 |\n| Q4 | 4.5 |", "| Q3 | 4.2 |", "| Q4 | 4.5 |")
	f("# Results\n\nRevenue rose.", "# Results", "Revenue rose.")
	f("Revenue was $4.2\nbillion in Q3. Costs fell.", "Revenue was $4.2\nbillion in Q3.", "Costs fell.")
}

func TestRemoveAnswer(t *testing.T) {
	chunk := "Acme Corp published its results on Monday. Acme Corp's revenue in Q3 2025 was $4.2 billion. " +
		"Its operating margin was 18%. The board thanked its staff."
	accepted := []string{"$4.2 billion", "4.2 billion dollars"}
	got, err := RemoveAnswer([]string{chunk, "An unrelated chunk."}, accepted)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Acme Corp published its results on Monday. Its operating margin was 18%. The board thanked its staff.",
		"An unrelated chunk.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("RemoveAnswer = %q, want %q", got, want)
	}

	f := func(contexts, accepted []string, wantErr error) {
		t.Helper()
		if out, err := RemoveAnswer(contexts, accepted); !errors.Is(err, wantErr) {
			t.Errorf("RemoveAnswer(%q, %q) = %q, %v; want %v", contexts, accepted, out, err, wantErr)
		}
	}
	f([]string{"Nothing relevant here."}, accepted, ErrAnswerNotFound)
	f(nil, accepted, ErrAnswerNotFound)
	f([]string{"Revenue was $4.2 billion."}, accepted, ErrEmptyContext)
	// An alias is an accepted answer too: the first sentence goes, the second
	// holds the alias and goes as well.
	f([]string{"It made $4.2 billion. That is 4.2 billion dollars."}, accepted, ErrEmptyContext)
	// Removing the middle sentence joins its neighbours, and the alias "big
	// Zed" now spans the new boundary: verification must catch it.
	f([]string{"Alpha is big. Beta holds the answer. Zed is small."}, []string{"answer", "big Zed"}, ErrAnswerRemains)
}

func ExampleRemoveAnswer() {
	ctx := []string{"Northwind Bank appointed Maria Lopez as chief financial officer. The bank is based in Oslo."}
	out, err := RemoveAnswer(ctx, []string{"Maria Lopez"})
	fmt.Printf("%q %v\n", out, err)
	// Output: ["The bank is based in Oslo."] <nil>
}
