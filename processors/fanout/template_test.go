package fanout

import (
	"strings"
	"testing"

	"github.com/robustream/robustream/schemas"
)

func TestTemplateCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		t    Template
		want []string // substrings of the error; none: valid
	}{
		{"full", Template{System: "You are terse.", User: "Passages:\n{context}\n\nQ: {question}\nA:", ClosedBook: "Q: {question}\nA:"}, nil},
		{"system only", Template{System: "You are terse."}, nil},
		{"context in system", Template{System: "Use these:\n{context}", User: "{question}"}, nil},
		{"json braces are text", Template{User: `Reply as {"answer": "..."}. {context} {question}`}, nil},
		{"empty", Template{}, []string{"prompt: empty"}},
		{"unknown placeholder", Template{User: "{context} {question} {documents}"}, []string{"prompt.user: unknown placeholder {documents}"}},
		{"no question", Template{User: "{context}"}, []string{"prompt.user: has no {question}"}},
		{"no context", Template{User: "{question}"}, []string{"prompt.user: has no {context}"}},
		{"closed book with context", Template{ClosedBook: "{context} {question}"}, []string{"prompt.closed_book: has {context}"}},
		{"closed book without question", Template{ClosedBook: "Answer."}, []string{"prompt.closed_book: has no {question}"}},
		{"placeholders in system alone", Template{System: "{question}"}, []string{"prompt.system: {context} and {question} need prompt.user"}},
		{"two problems", Template{User: "{ctx}", ClosedBook: "{Question}"}, []string{"{ctx}", "{Question}", "prompt.user: has no {question}"}},
	} {
		err := c.t.Check()
		if len(c.want) == 0 {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want %q", c.name, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

func TestTemplateRender(t *testing.T) {
	tpl := Template{System: "You answer for Acme support.", User: "Passages:\n{context}\n---\nQuestion: {question}"}
	sys, user := tpl.Render(StyleRARE, " What is {question}? ", []string{"A {context} placeholder inside a passage.", "Second."})
	if sys != "You answer for Acme support." {
		t.Errorf("system %q", sys)
	}
	want := "Passages:\nContext [1]:\nA {context} placeholder inside a passage.\n\nContext [2]:\nSecond.\n---\nQuestion: What is {question}?"
	if user != want {
		t.Errorf("user prompt\n%q\nwant\n%q", user, want)
	}
	// Closed-book without a closed_book part: the style's built-in one,
	// with the system message still sent.
	sys, user = tpl.Render(StyleSURE, "Who?", nil)
	if sys == "" || user != PromptIn(StyleSURE, "Who?", nil) {
		t.Errorf("closed-book render %q / %q", sys, user)
	}
	// The zero template is the built-in prompt, no system message.
	sys, user = Template{}.Render(StyleRARE, "Who?", []string{"Ann."})
	if sys != "" || user != Prompt("Who?", []string{"Ann."}) {
		t.Errorf("zero template %q / %q", sys, user)
	}
}

// Two models that differ only in their prompt, and one model whose prompt
// changes: every prompt is its own request id, and a model without a
// prompt keeps the ids it had before prompts existed (its cache still
// answers).
func TestFanoutPrompts(t *testing.T) {
	custom := Template{System: "Be brief.", User: "{context}\nQ: {question}"}
	other := Template{System: "Be very brief.", User: "{context}\nQ: {question}"}
	st, err := NewStage(Config{Models: []string{"a", "b", "c"}, Prompts: map[string]Template{"a": custom, "b": other}})
	if err != nil {
		t.Fatal(err)
	}
	v := variant(schemas.AxisOriginal, "original")
	reqs := process(t, st, v)
	byModel := map[string][]schemas.EvalRequest{}
	for _, r := range reqs {
		byModel[r.ModelID] = append(byModel[r.ModelID], r)
	}
	a, b, c := byModel["a"][0], byModel["b"][0], byModel["c"][0]
	if a.System != "Be brief." || a.Prompt != "Context [1]:\n"+v.Contexts[0]+"\nQ: "+v.Query {
		t.Errorf("model a: system %q prompt %q", a.System, a.Prompt)
	}
	if a.Prompt != b.Prompt || a.System == b.System {
		t.Fatalf("fixture: a and b should differ in the system part only")
	}
	if c.System != "" || c.Prompt != Prompt(v.Query, v.Contexts) || c.RequestID != RequestID("c", c.Prompt, DefaultDecoding) {
		t.Errorf("model c (no prompt) changed: %+v", c)
	}
	// Same model id, the prompt changed by a reload: new request ids.
	before := map[string]string{}
	for _, r := range reqs {
		before[r.ModelID+"/"+r.Axis] = r.RequestID
	}
	if err := st.SetModels(Config{Models: []string{"a", "b", "c"}, Prompts: map[string]Template{"a": other, "b": other}}); err != nil {
		t.Fatal(err)
	}
	after := process(t, st, v)
	for _, r := range after {
		key := r.ModelID + "/" + r.Axis
		switch r.ModelID {
		case "a":
			if r.RequestID == before[key] {
				t.Errorf("%s: prompt changed, request id kept", key)
			}
			if want := RequestIDWith("a", "Be very brief.", r.Prompt, DefaultDecoding); r.RequestID != want {
				t.Errorf("%s: request id %s, want %s", key, r.RequestID, want)
			}
		default:
			if r.RequestID != before[key] {
				t.Errorf("%s: prompt unchanged, request id changed", key)
			}
		}
	}
	if RequestIDWith("a", "x", "p", "d") == RequestIDWith("a", "y", "p", "d") || RequestIDWith("a", "", "p", "d") != RequestID("a", "p", "d") {
		t.Error("RequestIDWith: system text not hashed, or an empty one changes the id")
	}
	// Refused at load: a bad template, and a prompt for a model not listed.
	_, err = NewStage(Config{Models: []string{"a"}, Prompts: map[string]Template{"a": {User: "{question}"}, "z": custom}})
	if err == nil || !strings.Contains(err.Error(), "model a: prompt.user: has no {context}") || !strings.Contains(err.Error(), "prompts.z: not a configured model") {
		t.Errorf("bad prompts: %v", err)
	}
}
