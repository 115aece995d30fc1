package triplet

import (
	"strings"
	"testing"
)

// TestExtractDocProse: the shapes of documentation prose (docs/methods.md,
// The rule extractor), each with sentences that must yield the fact and
// sentences of the same look that must not. Names are invented.
func TestExtractDocProse(t *testing.T) {
	for _, tc := range []struct{ text, head, relation, tail, kind string }{
		// Appositions that say what a name is.
		{"Build Quillpad with Lintwerk, a library for shell parsing.", "Lintwerk", "is", "a library for shell parsing", KindCopula},
		{"This is Quillpad, the Fjord source-level text editor.", "Quillpad", "is", "the Fjord source-level text editor", KindCopula},
		{"Quillpad links against Lintwerk, a compression library, when it is installed.", "Lintwerk", "is", "a compression library", KindCopula},
		// A list of appositions, a modifier name, a name of the main clause.
		{"You need Quillpad, a program to print files, and Lintwerk, the definitions file.", "", "", "", ""},
		{"On Fjordix, the installer is started by hand.", "", "", "", ""},
		{"Quillpad, the editor, is small.", "", "", "", ""},
		{"If the last argument is passed as NULL, a set of default tables that is built in is used.", "", "", "", ""},
		{"The argument is passed as NULL, a set of default tables that is built in.", "", "", "", ""},
		// A path or address as the value of a named subject.
		{"The Quillpad home page is https://quillpad.example/docs.", "The Quillpad home page", "is", "https://quillpad.example/docs", KindCopula},
		{"The Quillpad home page is https://quillpad.example/docs or a mirror of it.", "", "", "", ""},
		{"The official Fjord name is quill.h.", "", "", "", ""},
		// A parenthesis after the subject; a participle phrase in it.
		{"quillc (Quill compiler) is a compiler for the Quill language.", "quillc", "is", "a compiler for the Quill language", KindCopula},
		{"The oldest version of Lintwerk supported by Quillpad is 3.2.", "The oldest version of Lintwerk supported by Quillpad", "is", "3.2", KindCopula},
		// A definition with an adverb before its adjective, ending before a participle phrase with its agent.
		{"Quillbase is a fully featured object database developed by Oda Rasmussen.", "Quillbase", "is", "a fully featured object database", KindCopula},
		// The relative clause of a bare definition is about the defined name.
		{"Quillpad is a text editor that implements the Fjord Editing Protocol.", "Quillpad", "implements", "the Fjord Editing Protocol", KindVerb},
		// "uses" with a named object; with a common one it says little.
		{"Quillpad uses Fjord domain sockets to connect its parts.", "Quillpad", "uses to connect its parts", "Fjord domain sockets", KindVerb},
		// The purpose is part of the question; one that cannot be said whole
		// gives none ("What does Quillpad use?" asks nothing).
		{"Quillpad uses Fjord sockets to connect, and it works.", "", "", "", ""},
		{"Borg uses SHA-256 for chunk ids.", "Borg", "uses for chunk ids", "SHA-256", KindVerb},
		{"Quill keys are two character sequences beginning with a caret.", "", "", "", ""},
		{"Quillmail reads a config file in INI syntax.", "", "", "", ""},
		{"The Quill IMAP server is a scalable enterprise mail system.", "The Quill IMAP server", "is", "a scalable enterprise mail system", KindCopula},
		{"Quill stores the Quill index in /var/lib/quill.", "Quill", "stores in", "/var/lib/quill", KindVerb},
		{"Quill converts Markdown to HTML.", "Quill", "converts to", "HTML", KindVerb},
		{"Quill installs the feature configuration file to /etc/quill/feature.conf.", "", "", "", ""},
		{"Quill listens on port 8080 by default.", "Quill", "listens on port", "8080", KindVerb},
		{"The Quill IMAP server uses the Fjord SASL library for authentication.", "The Quill IMAP server", "uses for authentication", "the Fjord SASL library", KindVerb},
		{"The file /etc/quill.equiv contains mappings between Fjord principals.", "The file /etc/quill.equiv", "contains", "mappings between Fjord principals", KindVerb},
		{"The Quill server implements LMTP via the lmtpd daemon.", "The Quill server", "implements via the lmtpd daemon", "LMTP", KindVerb},
		{"quillio provides SSL encrypted network connections for service programs.", "", "", "", ""},
		{"Quillpad uses the GPG signature on the files uploaded to GitHub to verify them.", "", "", "", ""},
		{"Quillpad uses a mostly normal build setup.", "", "", "", ""},
		// Vague definitions and objects say nothing.
		{"Quillpad is a freely available open-source package.", "", "", "", ""},
		{"Lintwerk is a framework which implements the logic of Quill.", "Lintwerk", "implements", "the logic of Quill", KindVerb},
		{"Quillpad produces files with a long name.", "", "", "", ""},
		{"Quillpad provides stable, public APIs for its front-ends.", "", "", "", ""},
		// A licence with its version is one licence, not a list.
		{"Quillpad is licensed under the Fjord Public License, version 2.", "Quillpad", "is licensed under", "the Fjord Public License", KindVerb},
		// The agent of a passive is a name, not a feature of one.
		{"Lintwerk is used by Quillpad's \"fast load\" feature.", "", "", "", ""},
		{"Quillpad was written by Oda Rasmussen.", "Quillpad", "was written by", "Oda Rasmussen", KindVerb},
		// A value after "defaults to"; a limit after "up to".
		{"Quillpad on Fjordix defaults to 32 bit, and to enable 64 bit one uses a flag.", "Quillpad on Fjordix", "defaults to", "32 bit", KindVerb},
		{"Quillpad supports up to 64 connections.", "Quillpad", "supports", "64 connections", KindVerb},
		{"Quillpad supports up to 64 connections and 8 users.", "", "", "", ""},
		// The date of a renaming.
		{"The Quillpad project was renamed to Quill in August 2021 to avoid a clash.", "The Quillpad project", "was renamed in", "August 2021", KindVerb},
		{"The quillpad project was renamed to quill in August 2021 to avoid a clash.", "", "", "", ""},
		{"Quillpad was renamed to Quill in August 2021 to avoid a clash.", "Quillpad", "was renamed in", "August 2021", KindVerb},
		// The release that brought a change.
		{"The --fast option was introduced in version 2.4.", "", "", "", ""},
		// A thing named in lower case before its kind is named.
		{"The maxdelay option sets the maximum delay of a measurement.", "The maxdelay option", "sets", "the maximum delay of a measurement", KindVerb},
		{"The following option sets the maximum delay of a measurement.", "", "", "", ""},
		// Where a named thing is to be had; an acronym inside a definition.
		{"Releases of Quill can be downloaded from ftp://ftp.quill.example/pub/quill/.", "Releases of Quill", "can be downloaded from", "ftp://ftp.quill.example/pub/quill/", KindVerb},
		{"The Quill changelog can be found in the file called doc/ChangeLog.", "The Quill changelog", "can be found in", "doc/ChangeLog", KindVerb},
		{"The Quill changelog can be found in many places.", "", "", "", ""},
		{"Quillmail is a mail transfer agent (MTA).", "Quillmail", "is", "a mail transfer agent (MTA)", KindCopula},
		{"The official home page of Quill is https://quill.example/.", "The official home page of Quill", "is", "https://quill.example/", KindCopula},
		// A value of an unnamed setting is no subject.
		{"Value 0 turns off rate limiting.", "", "", "", ""},
		// A change log's label and title is no subject.
		{"Issue 1533 - mod_tls module allow TLS handshake to be retried.", "", "", "", ""},
		// One of a list is no answer.
		{"The rtcsync directive is supported on Linux and macOS.", "", "", "", ""},
		{"Quillpad's plugin loader was added in Quillpad 3.1.", "Quillpad's plugin loader", "was added in", "Quillpad 3.1", KindVerb},
		{"Lintwerk support was removed in version 2.4.", "Lintwerk support", "was removed in", "version 2.4", KindVerb},
		{"Quillsync was introduced in version 2.4.", "Quillsync", "was introduced in", "version 2.4", KindVerb},
		{"Quillsync was introduced in version 2.4 and later rewritten.", "", "", "", ""},
		// A place that is a path.
		{"Quillpad is installed in /usr/lib/quillpad.", "Quillpad", "is installed in", "/usr/lib/quillpad", KindVerb},
		// "Note that" opens a statement.
		{"Note that Quillpad depends on Lintwerk.", "Quillpad", "depends on", "Lintwerk", KindVerb},
		// Negations, modals and instructions stay silent.
		{"Quillpad does not depend on Lintwerk.", "", "", "", ""},
		{"Quillpad can be installed in /usr/lib/quillpad.", "", "", "", ""},
		{"You should install Quillpad in /usr/lib/quillpad.", "", "", "", ""},
		{"If you use Quillpad, Lintwerk is a library for shell parsing.", "", "", "", ""},
	} {
		checkExtract(t, tc.text, tc.head, tc.relation, tc.tail, tc.kind)
	}
}

// TestExtractRelativeAttachment: after a prepositional phrase a relative
// clause may be about its noun, and is not read; a vague definition is
// read only with a relative clause that ends the sentence.
func TestExtractRelativeAttachment(t *testing.T) {
	for _, x := range Extract("Quillpad is an extension to the Fjord format that implements the Lint Protocol.") {
		if x.Relation == "implements" {
			t.Errorf("relative clause after a prepositional phrase read: %s", show([]Triple{x}))
		}
	}
	// A vague definition is read with its relative clause, which says
	// what kind of framework; never alone.
	checkExtract(t, "Lintwerk is a framework which implements the logic of Quill.", "Lintwerk", "is", "a framework which implements the logic of Quill", KindCopula)
	for _, text := range []string{
		"Lintwerk is a framework.",
		"Lintwerk is a framework which implements the logic of Quill, Fjord and Lint.",
		"Lintwerk is a framework which can implement the logic of Quill.",
		"Lintwerk is a framework which does not implement the logic of Quill.",
		"Lintwerk is a framework which implements the logic of Quill without assuming a specific request object or a web framework of any kind.",
		"Lintwerk is a framework which implements the logic of Quill (and Fjord).",
	} {
		for _, x := range Extract(text) {
			if x.Relation == "is" {
				t.Errorf("%q: vague definition read: %s", text, show([]Triple{x}))
			}
		}
	}
}

// TestExtractChunkTopic: "This package" and "The configuration file" stand
// for the one package a chunk presents, and for nothing when it presents
// none or two.
func TestExtractChunkTopic(t *testing.T) {
	one := "This is the Quillpad package.\n\nThis package depends on Lintwerk. The configuration file is /etc/quillpad.conf."
	got := Extract(one)
	if !has(got, "Quillpad", "depends on", "Lintwerk", KindVerb) {
		t.Errorf("This package not read as Quillpad:%s", show(got))
	}
	if !has(got, "Quillpad", "configuration file", "/etc/quillpad.conf", KindAttribute) {
		t.Errorf("the configuration file not read as Quillpad's:%s", show(got))
	}
	for _, text := range []string{
		"This package depends on Lintwerk. The configuration file is /etc/quillpad.conf.",
		"Quillpad is a text editor. Lintwerk is a shell parser. This package depends on Fjordlib. The configuration file is /etc/quillpad.conf.",
	} {
		for _, x := range Extract(text) {
			if x.Relation == "depends on" || x.Relation == "configuration file" {
				t.Errorf("%q: read without one topic: %s", text, show([]Triple{x}))
			}
		}
	}
}

// TestSentencesDocs: a lower-case program name opens a sentence after a
// period; an abbreviation or a word without a verb after it does not; a
// command line is not a sentence.
func TestSentencesDocs(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"It packs files into one archive. quillz is a compressor.", []string{"It packs files into one archive.", "quillz is a compressor."}},
		{"It contains the quill, quillc and quilld programs. quill and quillc comply with POSIX.", []string{"It contains the quill, quillc and quilld programs.", "quill and quillc comply with POSIX."}},
		{"Use a flag, e.g. quillz is fine here.", []string{"Use a flag, e.g. quillz is fine here."}},
		{"The version 2.0.1 shipped. ok", []string{"The version 2.0.1 shipped. ok"}},
		{"Run it like this:\n\n$ quillz -9 file\n\n./configure --prefix=/usr\n\n--with-quill build the quill plugin", []string{}},
	} {
		var got []string
		for _, s := range Sentences(tc.text) {
			if tc.text[s.Start:s.End] != s.Text {
				t.Fatalf("span [%d:%d] is not %q", s.Start, s.End, s.Text)
			}
			if !strings.HasSuffix(s.Text, ":") {
				got = append(got, s.Text)
			}
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("Sentences(%q)\n got %q\nwant %q", tc.text, got, tc.want)
		}
	}
}

// TestExtractRoleCopula: "The maintainer of X is NAME" names X's
// maintainer; a role of "this project" or a name that goes on does not.
func TestExtractRoleCopula(t *testing.T) {
	got := Extract("The maintainer of quillpad is [Oda Rasmussen][oda].\n\n[oda]: https://oda.example/")
	if !has(got, "quillpad", "maintainer", "Oda Rasmussen", KindAttribute) {
		t.Errorf("role not read:%s", show(got))
	}
	for _, text := range []string{"The maintainer of this project is Oda Rasmussen.", "The maintainer of quillpad is Oda Rasmussen and her team."} {
		for _, x := range Extract(text) {
			if x.Relation == "maintainer" {
				t.Errorf("%q: read %s", text, show([]Triple{x}))
			}
		}
	}
}

// TestExtractMarkup: Markdown marks around words do not hide the words,
// and an answer never carries a mark.
func TestExtractMarkup(t *testing.T) {
	got := Extract("**Quillpad** is part of the [Fjord platform][fjord].\n\n[fjord]: https://fjord.example/")
	if !has(got, "Quillpad", "is part of", "Fjord platform", KindCopula) {
		t.Errorf("marked-up sentence not read:%s", show(got))
	}
	for _, x := range Extract("Quillpad depends on [`lintwerk` and friends](https://lint.example/).") {
		if strings.ContainsAny(x.Tail, "[]`*") {
			t.Errorf("markup in a tail: %s", show([]Triple{x}))
		}
	}
}

// TestExtractTermList: a list of packages with what each is gives
// definitions; capitalised file names, instructions and descriptions that
// go on in the next line do not.
func TestExtractTermList(t *testing.T) {
	text := "Quill packages for Debian\n\n  quill          - The Quill text editor.\n  quill-doc      - Quill documentation.\n  libquill2      - Shared Quill library.\n\nCOPYING        - Copying conditions\nfjord-x1       - Use the module which accesses the\n                 entropy daemon.\nfjord-x2       - Enable the fast path.\nfjord-x3 - Reapply the patches on top of another base\nfjord-repo-layout - Fjord Repo Layout\n"
	got := Extract(text)
	for _, want := range [][2]string{{"quill-doc", "Quill documentation"}, {"libquill2", "Shared Quill library"}, {"quill", "The Quill text editor"}} {
		if !has(got, want[0], "is", want[1], KindCopula) {
			t.Errorf("(%s is %s) not read:%s", want[0], want[1], show(got))
		}
	}
	for _, x := range got {
		if x.Head == "COPYING" || strings.HasPrefix(x.Head, "fjord") {
			t.Errorf("read %s", show([]Triple{x}))
		}
		if !strings.Contains(text, x.Sentence.Text) || !strings.Contains(x.Sentence.Text, x.Tail) {
			t.Errorf("not verbatim: %s in %q", show([]Triple{x}), x.Sentence.Text)
		}
	}
}

// TestExtractTitleAndCommand: a README.Debian title names the chunk's
// package, which "This package" and a command's purpose belong to; a
// command without a topic, one followed by a clause, or an instruction
// that names no command yields nothing.
func TestExtractTitleAndCommand(t *testing.T) {
	text := "quillpad for Debian\n-------------------\n\nThis package ships Fjord bindings. To rebuild the font cache, run quill-cache -f.\n"
	got := Extract(text)
	if !has(got, "quillpad", "ships", "Fjord bindings", KindVerb) {
		t.Errorf("This package not read as the title's package:%s", show(got))
	}
	if !has(got, "quillpad", "command to rebuild the font cache", "quill-cache -f", KindAttribute) {
		t.Errorf("command not read:%s", show(got))
	}
	for _, text := range []string{
		"To rebuild the font cache, run quill-cache -f.",
		"quillpad for Debian\n\nTo rebuild the font cache, run quill-cache -f or reboot.",
		"quillpad for Debian\n\nTo rebuild the font cache, run the following command:",
		"Quill and Lintwerk for Debian\n\nThis package ships Fjord bindings.",
	} {
		for _, x := range Extract(text) {
			if strings.HasPrefix(x.Relation, "command") || x.Relation == "ships" {
				t.Errorf("%q: read %s", text, show([]Triple{x}))
			}
		}
	}
}

// TestTermDefaults: the default a reference entry states, under the entry's
// term line; not a behaviour, not a long phrase, not across a heading.
func TestTermDefaults(t *testing.T) {
	chunk := "quill_min_messages (enum)\n\n" +
		"Controls which message levels are sent. Valid values are DEBUG, LOG and ERROR. The default is LOG. Note that LOG ranks here.\n\n" +
		"quill_pending_limit (integer)\n\n" +
		"Sets the maximum size of the pending list. The default is four megabytes (4MB). This setting can be overridden.\n\n" +
		"quill_digits (integer)\n\n" +
		"Sets the base. The default is to use base 2**30 on 64-bit machines.\n\n" +
		"quill_zone (string)\n\n" +
		"Sets the zone. The default value is 'Default', which is a collection that works in most of the world.\n\n" +
		"--jobs=N\n\n" +
		"Runs N jobs at once. Defaults to the number of processors that the machine has online at start.\n\n" +
		"--indicator\n\n" +
		"Shows a scrollbar.\n\n" +
		"--fill=number\n\n" +
		"Sets the target width. The default value is -8.\n\n" +
		"--softwrap\n\n" +
		"Wraps long lines.\n\n" +
		"-s \"program [argument]\"\n\n" +
		"Uses the program. The default value is 4.\n\n" +
		"## Other settings\n\n" +
		"The default is 20480.\n"
	var got []string
	for _, x := range termDefaults(chunk, "quill(1)") {
		got = append(got, x.Head+"|"+x.Tail)
		if chunk[x.Sentence.Start:x.Sentence.End] != x.Sentence.Text || !strings.Contains(x.Sentence.Text, x.Tail) {
			t.Errorf("sentence not verbatim or without its tail: %+v", x)
		}
	}
	// an option with a lower-case value ("--fill=number") is a term of
	// its own, and one the pattern cannot name ends the entry before it:
	// neither default goes to the option above
	want := []string{"quill_min_messages|LOG", "quill_pending_limit|four megabytes (4MB)", "quill_zone|'Default'", "quill --fill|-8"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("defaults:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An option's default on a page that names no program is not asked:
	// "What does --fill default to?" of which program?
	for _, x := range termDefaults(chunk, "The Quill text editor") {
		if strings.HasPrefix(x.Head, "-") {
			t.Errorf("asked without its program: %+v", x)
		}
	}
}

// TestExampleEllipsis: after "for example" a comma and a noun phrase leave
// a verb out; they define nothing.
func TestExampleEllipsis(t *testing.T) {
	chunk := "Quill-trees require a comparison support function.\n\nUnlike search operators, support functions return whichever data type the particular index method expects; for example in the case of the comparison function for Quill-trees, a signed integer."
	for _, x := range Extract(chunk) {
		if x.Tail == "a signed integer" {
			t.Errorf("read an ellipsis as a definition: %s", show([]Triple{x}))
		}
	}
}
