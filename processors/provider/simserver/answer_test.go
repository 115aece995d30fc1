package simserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readGolden reads a prompt golden file of processors/fanout, the stage
// that renders the engine's prompts, so that a change of their format
// shows here. The file is read, the package not imported: stage packages
// stay apart (processors/imports_test.go).
func readGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fanout", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// enginePrompt renders a prompt in the engine's format (processors/fanout,
// Prompt) for the cases the golden files do not cover.
func enginePrompt(question string, contexts ...string) string {
	var b strings.Builder
	if len(contexts) == 0 {
		b.WriteString("Answer the question from your own knowledge.\n")
	} else {
		b.WriteString("Answer the question using only the numbered contexts below.\n")
		b.WriteString("If the contexts do not contain the answer, reply exactly: no such info\n")
		for i, c := range contexts {
			fmt.Fprintf(&b, "\nContext [%d]:\n%s\n", i+1, c)
		}
	}
	fmt.Fprintf(&b, "\nQuestion: %s\nAnswer:", question)
	return b.String()
}

func TestParsePrompt(t *testing.T) {
	f := func(prompt, wantQuestion string, wantContexts ...string) {
		t.Helper()
		q, cs := parsePrompt(prompt)
		if q != wantQuestion || fmt.Sprintf("%q", cs) != fmt.Sprintf("%q", wantContexts) {
			t.Errorf("parsePrompt(%q) = %q %q, want %q %q", prompt, q, cs, wantQuestion, wantContexts)
		}
	}
	f(readGolden(t, "prompt_rag.golden"), "What was Acme Corp's revenue in Q3 2025?",
		"Acme Corp's revenue in Q3 2025 was $4.2 billion.", "Its operating margin was 18%.")
	f(readGolden(t, "prompt_closed_book.golden"), "What was Acme Corp's revenue in Q3 2025?")
	f(enginePrompt("Who?", "line one\nline two", "", "third"), "Who?", "line one\nline two", "third")
	f("Question: bare?\nAnswer:", "bare?")
	f("just a question", "just a question")
	// A context quoting "Question:" mid-line is still a context.
	f(enginePrompt("Real?", "The memo said Question: fake?"), "Real?", "The memo said Question: fake?")
}

// FuzzParsePrompt: a prompt is untrusted input; whatever it is, parsing
// must not panic and must return pieces of it.
func FuzzParsePrompt(f *testing.F) {
	f.Add(enginePrompt("Who?", "a", "b"))
	f.Add("Question:")
	f.Add("Context [1]:\nQuestion:\nAnswer:")
	f.Add("\nQuestion: x\nAnswer:\nAnswer:")
	f.Fuzz(func(t *testing.T, prompt string) {
		q, cs := parsePrompt(prompt)
		for _, piece := range append(cs, q) {
			if !strings.Contains(prompt, piece) {
				t.Errorf("parsePrompt(%q) returned %q, not part of it", prompt, piece)
			}
		}
	})
}

func TestDefaultAnswerer(t *testing.T) {
	answer := newAnswerer()
	f := func(prompt, want string) {
		t.Helper()
		if got := answer(prompt); !strings.Contains(got, want) {
			t.Errorf("answer to %q = %q, want it to contain %q", prompt, got, want)
		}
	}
	acme := "Acme Corp's revenue in Q3 2025 was $4.2 billion."
	f(readGolden(t, "prompt_rag.golden"), "4.2 billion")
	f(enginePrompt("What was Acme Corp's revenue in Q3 2025?", "The weather was mild.", acme), "4.2 billion")
	f(enginePrompt("Whom did Northwind Bank appoint as chief financial officer?",
		"Northwind Bank appointed Maria Lopez as chief financial officer."), "Maria Lopez")
	f(readGolden(t, "prompt_closed_book.golden"), "no such info")
	f(enginePrompt("What was Acme Corp's revenue in Q3 2025?"), "no such info")
	f(enginePrompt("Whom did Northwind Bank appoint as chief financial officer?", "Acme Corp sells anvils."), "no such info")
	f("not a prompt of the engine", "no such info")
}

func TestDefaultAnswererOverHTTP(t *testing.T) {
	s := start(t, with(Config{}))
	f := func(prompt, want string) {
		t.Helper()
		var got chatResp
		post(nil, s, "/chat/completions", chat(prompt)).decode(t, &got)
		if c := got.Choices[0].Message.Content; !strings.Contains(c, want) {
			t.Errorf("answer %q, want it to contain %q", c, want)
		}
	}
	f(enginePrompt("What was Acme Corp's revenue in Q3 2025?", "Acme Corp's revenue in Q3 2025 was $4.2 billion."), "4.2 billion")
	f(enginePrompt("What was Acme Corp's revenue in Q3 2025?"), "no such info")
}
