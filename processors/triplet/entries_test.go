package triplet

import (
	"strings"
	"testing"
)

// TestEntryTriples: reference entries (KindEntry) read from the shapes
// manuals write them in, and entries of the same look that must not be
// read. Names are invented.
func TestEntryTriples(t *testing.T) {
	type want struct{ head, relation, tail string }
	for _, tc := range []struct {
		name, title, text string
		want              []want
	}{
		{"HTML definition list, two term lines", "quill-pack(1)", "## OPTIONS\n\n-f\n\n--force\n\nAllow packing otherwise ignored files. Use with care.\n",
			[]want{{"Allow packing otherwise ignored files", "option of quill-pack", "--force"}}},
		{"text manual page, description under the term", "quill – a text editor", "OPTIONS\n       -q, --quickblank\n              Make status messages disappear after one keystroke.\n",
			[]want{{"Make status messages disappear after one keystroke", "option of quill", "--quickblank"}}},
		{"a page that names no program", "The Quill text editor", "OPTIONS\n       -q, --quickblank\n              Make status messages disappear after one keystroke.\n", nil},
		{"one line, Markdown list", "quill-rm(1)", "- `--dry-run`: Print the files to remove without removing anything.\n* **--color** — Colorize the output.\n",
			[]want{{"Print the files to remove without removing anything", "option of quill-rm", "--dry-run"}, {"Colorize the output", "option of quill-rm", "--color"}}},
		{"the option over its negation", "quill-commit(1)", "-s, --signoff, --no-signoff\n\nAdd a trailer by the committer at the end of the message.\n",
			[]want{{"Add a trailer by the committer at the end of the message", "option of quill-commit", "--signoff"}}},
		{"two options, one description", "quill-log(1)", "--author=<pattern>\n\n--committer=<pattern>\n\nLimit the output to commits whose header lines match.\n", nil},
		{"no name written out", "quill-commit(1)", "--[no-]signoff\n\nAdd a trailer by the committer at the end of the message.\n", nil},
		{"an identifier under a heading naming its kind", "quill - a text editor", "## Rebindable functions\n\nwordcount\n\nCounts the lines, words and characters of the buffer.\n",
			[]want{{"Counts the lines, words and characters of the buffer", "function of quill", "wordcount"}}},
		{"the NAME line of a command's manual page", "quill-pack(1)", "## NAME\n\nquill-pack - Pack loose objects into one archive\n",
			[]want{{"Pack loose objects into one archive", "command", "quill-pack"}}},
		// Descriptions that lean on something else, or do not open with a verb.
		{"an identifier under no kind heading", "quill(1)", "## Overview\n\nwordcount\n\nCounts the lines of the buffer.\n", nil},
		{"a pointer to another entry", "quill(1)", "-F\n\nSame as --fixed-strings but without the check.\n", nil},
		{"a pronoun", "quill(1)", "--edit\n\nOpen the message in an editor and let the user change it.\n", nil},
		{"the argument by its placeholder", "quill(1)", "-T number, --tabsize=number\n\nSet the displayed tab length to number columns.\n", nil},
		{"a negation", "quill(1)", "--no-wrap\n\nDo not wrap long lines.\n", nil},
		{"a modal", "quill(1)", "--dry-run\n\nReport what would be removed.\n", nil},
		{"a noun phrase for an option without a value", "quill(1)", "--pathspec\n\nFiles to add content from.\n", nil},
		// A noun phrase naming an option's value: what the option sets.
		{"a noun phrase naming the value", "quilld — the Quill daemon", "-maxperip=n\n\nMaximum number of connections accepted from the same IP address.\n",
			[]want{{"Sets the maximum number of connections accepted from the same IP address", "option of quilld", "-maxperip"}}},
		{"a value phrase with its article", "quilld — the Quill daemon", "-o, --output=FILE\n\nThe file to write the report to.\n",
			[]want{{"Sets the file to write the report to", "option of quilld", "--output"}}},
		{"a verb the capital hides", "quilld — the Quill daemon", "-t secs\n\nSpecify time constant, an integer.\n", nil},
		{"a value phrase with a verb of its own", "quilld — the Quill daemon", "-x value\n\nValue is ignored.\n", nil},
		{"a value phrase pointing at another option", "quilld — the Quill daemon", "-M name\n\nAlternative to -b.\n", nil},
		// A GNU manual names its program in its title, alone or as a
		// texinfo node's manual; its chapter on building lists the
		// configure script's options, not the program's.
		{"a GNU manual's title", "The GNU quill text editor", "--saveonexit\n\nSave a changed buffer without prompting.\n",
			[]want{{"Save a changed buffer without prompting", "option of quill", "--saveonexit"}}},
		{"a texinfo node of a GNU manual", "Limits control (GNU Q4 1.4.19 macro processor)", "--synclines\n\nGenerate synchronization lines for the C preprocessor.\n",
			[]want{{"Generate synchronization lines for the C preprocessor", "option of q4", "--synclines"}}},
		{"a page titled by its program in capitals", "QUILLD", "-g, --open-quills\n\nShow the generic identifiers of quills in error messages.\n",
			[]want{{"Show the generic identifiers of quills in error messages", "option of quilld", "--open-quills"}}},
		{"a page titled by a file name", "README", "-g, --open-quills\n\nShow the generic identifiers of quills in error messages.\n", nil},
		{"a texinfo node of a manual named in parentheses", "Main Options (QSPP)", "--safer\n\nDisables certain unsafe operations.\n",
			[]want{{"Disables certain unsafe operations", "option of qspp", "--safer"}}},
		{"a node on another program of the suite", "Invoking qspp-convert (QSPP)", "--safer\n\nDisables certain unsafe operations.\n",
			[]want{{"Disables certain unsafe operations", "option of qspp-convert", "--safer"}}},
		{"a place in parentheses names no program", "Installing (Linux)", "--safer\n\nDisables certain unsafe operations.\n", nil},
		{"a configure option in a manual", "The GNU quill text editor", "--disable-mouse\n\nExclude all mouse functionality.\n", nil},
		{"a count's placeholder", "Limits control (GNU Q4 1.4.19 macro processor)", "--hashsize=num\n\nMake the internal hash table be num entries big.\n", nil},
		{"a subject and its verb", "quill(1)", "--keep\n\nChanges to the index are kept.\n", nil},
		{"no full stop, wrapped", "quill(1)", "--keep\n\nKeep the index\nof the tree\n", nil},
		{"a generated help's one line, no full stop", "quill(1)", "--keep\n\nkeep the index\n",
			[]want{{"Keep the index", "option of quill", "--keep"}}},
	} {
		var got []want
		for _, tr := range ExtractTitled(tc.text, tc.title) {
			if tr.Kind == KindEntry {
				got = append(got, want{tr.Head, tr.Relation, tr.Tail})
				if !strings.Contains(tc.text, tr.Sentence.Text) || !strings.Contains(tr.Sentence.Text, tr.Tail) {
					t.Errorf("%s: sentence %q is not verbatim or lacks the term %q", tc.name, tr.Sentence.Text, tr.Tail)
				}
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: got %v, want %v", tc.name, got[i], tc.want[i])
			}
		}
	}
}

// TestOptionSubject: "The -nn option enables …" is asked of the program the
// page's title names, and not at all on a page that names none.
func TestOptionSubject(t *testing.T) {
	const s = "The -nn option enables new mail notification."
	if got := ExtractTitled(s, "Quillmail Technical Notes: Command Line Arguments"); len(got) != 0 {
		t.Errorf("no program: got %v", got)
	}
	got := ExtractTitled(s, "quillmail(1)")
	if len(got) != 1 || got[0].Head != "The -nn option of quillmail" || got[0].Tail != "new mail notification" {
		t.Errorf("got %v", got)
	}
	// A term whose description is an instruction is not "What is …?".
	if got := ExtractTitled("- test.panel.start - Start testing the UPS panel\n- test.panel.stop - Stop a UPS panel test\n- test.battery.start - Start a battery test\n", ""); len(got) != 0 {
		t.Errorf("instructions read as definitions: %v", got)
	}
}

// TestLayoutLabels: rows keyed by a one-letter label under "Column" are
// places in a layout, not things a question can name; a key table's
// one-letter keys are.
func TestLayoutLabels(t *testing.T) {
	layout := "## CSV file layout\n\n| Column | Data | Description |\n|---|---|---|\n| A | Location | The location comments |\n| B | Source Language | The source string |\n"
	for _, x := range Extract(layout) {
		if x.Kind == KindTable {
			t.Errorf("asked of a layout label: %+v", x)
		}
	}
	keys := "## Most common compose keys\n\n| Key | Function |\n|---|---|\n| y | send the message |\n| q | abort sending the message |\n"
	n := 0
	for _, x := range Extract(keys) {
		if x.Kind == KindTable {
			n++
		}
	}
	if n != 2 {
		t.Errorf("key table: %d facts, want 2", n)
	}
	// An instruction whose verb the tagger takes for a name is no subject.
	if got := Extract("Insert translated text into HTML templates."); len(got) != 0 {
		t.Errorf("instruction read as a fact: %v", got)
	}
}
