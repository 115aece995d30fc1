package question

import (
	"testing"
	"time"

	"github.com/robustream/robustream/schemas"
)

// TestQuestionWordByAnswer: the question word follows what the answer is
// (a person, a date, a version, a path, a command, a count with its unit),
// and the verb agrees with its subject and keeps its tense.
func TestQuestionWordByAnswer(t *testing.T) {
	for _, tc := range []struct{ kind, head, relation, tail, sentence, want string }{
		// A person, or an organisation named as the agent: "Who"; a thing: "What".
		{"verb", "Lintwerk", "is maintained by", "Oda Rasmussen", "Lintwerk is maintained by Oda Rasmussen.", "Who maintains Lintwerk?"},
		{"verb", "Lintwerk", "was written by", "Oda Rasmussen", "Lintwerk was written by Oda Rasmussen.", "Who wrote Lintwerk?"},
		{"verb", "Lintwerk", "is developed by", "the Quill Foundation", "Lintwerk is developed by the Quill Foundation.", "Who develops Lintwerk?"},
		{"verb", "Lintwerk", "are provided by", "the libquill package", "Lintwerk are provided by the libquill package.", "What provides Lintwerk?"},
		{"verb", "The Quill Project", "thanks", "Oda Rasmussen", "The Quill Project thanks Oda Rasmussen <oda@example.org>.", "Who does the Quill Project thank?"},
		{"verb", "The Quill Project", "thanks", "the Quill Foundation", "The Quill Project thanks the Quill Foundation.", "What does the Quill Project thank?"},
		{"verb", "The Quill Project", "thanks", "Rasmussen", "The Quill Project thanks Rasmussen.", "Who does the Quill Project thank?"},
		{"verb", "The Quill Project", "thanks", "`quillbot`", "The Quill Project thanks `quillbot`.", "What does the Quill Project thank?"},
		// A date: "When".
		{"verb", "Lintwerk", "was released on", "14 March 2021", "Lintwerk was released on 14 March 2021.", "When was Lintwerk released?"},
		{"verb", "Lintwerk", "was released on", "2021-03-14", "Lintwerk was released on 2021-03-14.", "When was Lintwerk released?"},
		// A version: "In which version", "Since which version".
		{"verb", "The --fast option", "was introduced in", "2.5", "The --fast option was introduced in 2.5.", "In which version was the --fast option introduced?"},
		{"verb", "Lintwerk", "is available since", "version 1.4", "Lintwerk is available since version 1.4.", "Since which version is Lintwerk available?"},
		{"verb", "Lintwerk", "added in", "2.5.1", "Lintwerk added YAML support in 2.5.1.", "In which version did Lintwerk add YAML support?"},
		{"verb", "Quillpad's plugin loader", "was added in", "Quillpad 3.1", "Quillpad's plugin loader was added in Quillpad 3.1.", "In which version was Quillpad's plugin loader added?"},
		{"verb", "Lintwerk support", "was removed in", "version 2.4", "Lintwerk support was removed in version 2.4.", "In which version was Lintwerk support removed?"},
		// A path: "Where … installed/located", "Which file", "Which directory".
		{"verb", "Lintwerk", "is installed in", "/usr/lib/lintwerk", "Lintwerk is installed in /usr/lib/lintwerk.", "Where is Lintwerk installed?"},
		{"verb", "Lintwerk", "reads", "/etc/lintwerk.conf", "Lintwerk reads /etc/lintwerk.conf at start.", "Which file does Lintwerk read?"},
		{"verb", "Lintwerk", "fills", "~/.cache/lintwerk/", "Lintwerk fills ~/.cache/lintwerk/ between runs.", "Which directory does Lintwerk fill?"},
		// A path whose spelling says neither (a device, a program, a directory).
		{"verb", "Lintwerk", "reads", "/dev/quillrand", "Lintwerk reads /dev/quillrand at start.", "What does Lintwerk read?"},
		{"copula", "The Lintwerk configuration file", "is", "/etc/lintwerk.conf", "The Lintwerk configuration file is /etc/lintwerk.conf.", "Where is the Lintwerk configuration file located?"},
		{"attribute", "Lintwerk", "configuration file", "/etc/lintwerk.conf", "Lintwerk's configuration file, /etc/lintwerk.conf, is read first.", "Where is Lintwerk's configuration file located?"},
		// A requirement, an adjective's complement, a purpose, a term.
		{"verb", "Public Lintwerk modules", "must be installed in", "/usr/lib/lintwerk", "Public Lintwerk modules must be installed in /usr/lib/lintwerk.", "Where must Public Lintwerk modules be installed?"},
		{"verb", "The lintwerk2 package", "must depend on", "the lintwerk-core package", "The lintwerk2 package must depend on the lintwerk-core package.", "What must the lintwerk2 package depend on?"},
		{"copula", "The Lintwerk daemon", "is responsible for", "collecting Quill packets", "The Lintwerk daemon is responsible for collecting Quill packets.", "What is the Lintwerk daemon responsible for?"},
		{"copula", "Lintwerk", "is available from", "https://lintwerk.example.org/", "Lintwerk is available from https://lintwerk.example.org/.", "Where is Lintwerk available?"},
		{"verb", "Lintwerk", "is designed for", "Quill servers", "Lintwerk is designed for Quill servers.", "What is Lintwerk designed for?"},
		{"verb", "Lintwerk", "is used to", "convert between Quill formats", "Lintwerk is used to convert between Quill formats.", "What is Lintwerk used to do?"},
		{"copula", "A lint package", "is", "a package that checks Quill files", "A lint package is a package that checks Quill files.", "What is a lint package?"},
		{"copula", "lint packages", "are", "packages that check Quill files", "Lint packages are packages that check Quill files.", "What are lint packages?"},
		// A place: "Where", for "at" and for an address.
		{"verb", "Lintwerk", "was developed at", "the University of Bergen", "Lintwerk was developed at the University of Bergen.", "Where was Lintwerk developed?"},
		{"verb", "Lintwerk", "is available from", "https://lintwerk.example.org/", "Lintwerk is available from https://lintwerk.example.org/.", "Where is Lintwerk available?"},
		{"verb", "Lintwerk", "is written in", "Go", "Lintwerk is written in Go.", "What is Lintwerk written in?"},
		{"release", "functions @eq, @ne", "were added in release of quillwall", "2.0.8", "- new functions @eq, @ne", "In which release of quillwall were functions @eq, @ne added?"},
		{"release", "mountpoints", "were added to some log lines in release of Icequill", "2.4.1", "- add mountpoints to some log lines", "In which release of Icequill were mountpoints added to some log lines?"},
		{"verb", "Lintwerk", "stores in", "/var/lib/lintwerk", "Lintwerk stores the Lintwerk index in /var/lib/lintwerk.", "Where does Lintwerk store the Lintwerk index?"},
		{"verb", "Lintwerk", "converts to", "HTML", "Lintwerk converts Markdown to HTML.", "What does Lintwerk convert Markdown to?"},
		{"verb", "Lintwerk", "listens on port", "8080", "Lintwerk listens on port 8080 by default.", "On which port does Lintwerk listen by default?"},
		{"verb", "Lintwerk", "is known as", "Sid", "Lintwerk is known as Sid.", "What is Lintwerk known as?"},
		{"verb", "Lintwerk", "uses to draw fonts", "the Quill library", "Lintwerk uses the Quill library to draw fonts.", "What does Lintwerk use to draw fonts?"},
		{"copula", "the default backend in Lintwerk 1.4", "is", "Glass", "Glass is the default backend in Lintwerk 1.4.", "What is the default backend in Lintwerk 1.4?"},
		// A command: "Which command".
		{"verb", "Lintwerk", "runs", "lintwerk --check", "Before each commit Lintwerk runs `lintwerk --check` on the tree.", "Which command does Lintwerk run?"},
		{"attribute", "quillpad", "command to rebuild the font cache", "quill-cache -f", "To rebuild the font cache, run quill-cache -f.",
			"Which command rebuilds the font cache for `quillpad`?"},
		// A count with its unit: "How many {unit}".
		{"verb", "Lintwerk", "supports", "up to 64 connections", "Lintwerk supports up to 64 connections.", "How many connections does Lintwerk support?"},
		{"verb", "Lintwerk", "reserves", "512 KB", "Lintwerk reserves 512 KB for its buffers.", "How many KB does Lintwerk reserve?"},
		{"verb", "Lintwerk", "comes with", "two testing frameworks", "Lintwerk comes with two testing frameworks.", "How many testing frameworks does Lintwerk come with?"},
		{"verb", "Lintwerk", "was updated to", "Unicode 6.0.0", "Lintwerk has been updated to Unicode 6.0.0.", "What was Lintwerk updated to?"},
		// A passive agrees with a plural subject, whatever the relation
		// says; a name ending in "s" is no plural.
		{"verb", "The Lintwerk data tables", "was updated to", "Unicode 6.0.0", "The Lintwerk data tables have been updated to Unicode 6.0.0.", "What were the Lintwerk data tables updated to?"},
		{"verb", "GNU Quillwerks", "was updated to", "Unicode 6.0.0", "GNU Quillwerks has been updated to Unicode 6.0.0.", "What was GNU Quillwerks updated to?"},
		// Anything else: "What".
		{"verb", "Lintwerk", "depends on", "libquill", "Lintwerk depends on libquill.", "What does Lintwerk depend on?"},
		{"verb", "QPL", "stands for", "Quill Public License", "QPL stands for Quill Public License.", "What does QPL stand for?"},
		{"verb", "Lintwerk", "defaults to", "UTF-8", "Lintwerk defaults to UTF-8.", "What does Lintwerk default to?"},
		{"verb", "Lintwerk", "is licensed under", "the Quill Public License", "Lintwerk is licensed under the Quill Public License.", "What is Lintwerk licensed under?"},
		{"verb", "The Fjord Group project", "was set up on", "Quill Forge", "The Fjord Group project has been setup on Quill Forge.", "What was the Fjord Group project set up on?"},
		// "TCP/IP" and "and/or" are no paths; "GNU GPL" and "Quill Public License" no people.
		{"verb", "Lintwerk", "speaks", "TCP/IP", "Lintwerk speaks TCP/IP.", "What does Lintwerk speak?"},
		{"copula", "Lintwerk's licence", "is", "Quill Public License", "Lintwerk's licence is Quill Public License.", "What is Lintwerk's licence?"},
		{"copula", "the main author of the Lintwerk server", "is", "The Fjord Software Consortium", "The Fjord Software Consortium is the main author of the Lintwerk server.", "Who is the main author of the Lintwerk server?"},
		// Agreement: a plural subject asks with "do", a singular one never
		// with a bare verb.
		{"verb", "Lintwerk and Quillsh", "provide", "a plugin interface", "Lintwerk and Quillsh provide a plugin interface.", "What do Lintwerk and Quillsh provide?"},
		{"verb", "The Quill servers", "support", "hardware compression", "The Quill servers support hardware compression.", "What do the Quill servers support?"},
		{"verb", "Lintwerk", "provide", "a plugin interface", "Lintwerk provide a plugin interface.", ""},
		{"verb", "Opaque formats", "include", "proprietary formats", "Opaque formats include proprietary formats.", ""},
		{"verb", "Make QUILLS", "match", "a picture CD", "Make QUILLS match a picture CD.", ""},
		// The subject keeps its determiner, lower-cased inside the
		// question; a program's name keeps its case.
		{"verb", "A Quill-conforming parser", "replaces", "the old Lintwerk parser", "A Quill-conforming parser replaces the old Lintwerk parser.", "What does a Quill-conforming parser replace?"},
		{"copula", "libquill", "is", "an XML toolkit", "libquill is an XML toolkit.", "What is `libquill`?"},
		{"copula", "libquill2", "is", "an XML toolkit", "libquill2 is an XML toolkit.", "What is libquill2?"},
	} {
		got, ok := SingleFor(tc.kind, tc.head, tc.relation, tc.tail, tc.sentence, tc.sentence, time.Time{})
		if tc.want == "" {
			if ok {
				t.Errorf("%s (%s | %s | %s): got %q, want none", tc.kind, tc.head, tc.relation, tc.tail, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("%s (%s | %s | %s) = %q, %v; want %q", tc.kind, tc.head, tc.relation, tc.tail, got, ok, tc.want)
		}
	}
}

// TestAnswerKinds: what kind of thing an answer is, from its shape and
// its sentence.
func TestAnswerKinds(t *testing.T) {
	for _, tc := range []struct {
		tail, sentence string
		want           answerKind
	}{
		{"Oda Rasmussen", "", answerPerson},
		{"Quill Public License", "", answerThing},
		{"Robot Exclusion Standard", "", answerThing},
		{"GNU GPL", "", answerThing},
		{"Linux Kernel", "", answerThing},
		{"14 March 2021", "", answerDate},
		{"2021-03-14", "", answerDate},
		{"1998", "", answerDate},
		{"2.5.1", "", answerVersion},
		{"v3.0.19-1", "", answerVersion},
		{"version 4", "", answerVersion},
		{"Quillpad 3.1", "", answerVersion},
		{"coreutils-9.0", "", answerVersion},
		{"/usr/share/doc/quill/", "", answerPath},
		{"$HOME/.quillrc", "", answerPath},
		{"debian/source/format", "", answerPath},
		{"debian/quill.install", "", answerPath},
		{"TCP/IP", "", answerThing},
		{"and/or", "", answerThing},
		{"100 MB/s", "", answerThing},
		{"https://quill.example.org/docs", "", answerThing},
		{"make install", "To build it, run make install as root.", answerCommand},
		{"make install", "The targets make install and make check exist.", answerThing},
		{"a built-package format called “wheels”", "PEP 427 defines a built-package format called “wheels”.", answerThing},
		{"lintwerk --check", "Lintwerk runs `lintwerk --check` first.", answerCommand},
		{"12 worker threads", "", answerCount},
		{"64 KB", "", answerCount},
	} {
		if got := kindOf(tc.tail, tc.sentence); got != tc.want {
			t.Errorf("kindOf(%q, %q) = %v, want %v", tc.tail, tc.sentence, got, tc.want)
		}
	}
}

// TestSpecificAnswers: an answer is one definite thing: not a generic
// phrase, not dated by the time of writing, not a list, not one item of a
// list in its passage.
func TestSpecificAnswers(t *testing.T) {
	for _, tc := range []struct {
		answer, passage string
		want            bool
	}{
		{"a cryptographic library", "", true},
		{"the Robot Exclusion Standard", "", true},
		{"a small and fast command-line search tool", "", true},
		{"between 5 and 10", "", true},
		{"GNU Wget (a downloader, mirror and crawler)", "", true},
		{"the executable page problem for SELinux", "", true},
		// Generic or pointing into the text.
		{"external libraries", "", false},
		{"many features", "", false},
		{"a number of improvements", "", false},
		{"a special group of TLDs", "", false},
		{"a group of Fjord maintainers", "", false},
		{"stable, public APIs", "", false},
		{"a fix for a problem", "", false},
		{"extensions", "", false},
		{"the following", "", false},
		{"one", "", false},
		{"a freely available open-source package", "", false},
		{"a complex program", "", false},
		{"a comprehensive patch set", "", false},
		// Like something said before.
		{"a similar syntax", "", false},
		{"the same licence as Lintwerk", "", false},
		{"a particular offender", "", false},
		{"a security patch release", "", true},
		// Relative to the time of writing.
		{"a current version of Lintwerk", "", false},
		{"the latest release", "", false},
		// Lists.
		{"zlib, bzip2 and xz", "", false},
		{"RFC 5321 (extended SMTP) and RFC 1870 (size extension)", "", false},
		{"Lintwerk 2 and Lintwerk 3", "", false},
		{"YAML, TOML, INI", "", false},
		{"libquill and libquillsh", "", false},
		{"the GPL and the LGPL", "", false},
		{"Oda Rasmussen and Per Holm", "", false},
		{"Quill Wall's Practical Extracting and Report Language", "", true},
		{"the Robot Exclusion and Sitemaps Standard", "", true},
		// One item of a list in the passage.
		{"Per Holm", "The Quill Project thanks Oda Rasmussen, Per Holm, Kari Nord and Ivar Lie.", false},
		{"Oda Rasmussen", "The Quill Project thanks Oda Rasmussen, Per Holm, Kari Nord and Ivar Lie.", false},
		{"Ivar Lie", "The Quill Project thanks Oda Rasmussen, Per Holm, Kari Nord and Ivar Lie.", false},
		{"YAML", "Lintwerk reads YAML and TOML.", false},
		{"TOML", "Lintwerk reads YAML and TOML.", false},
		// Not a list: an apposition, a clause after "and", a comment.
		{"Oda Rasmussen", "The project's maintainer, Oda Rasmussen, lives in Bergen.", true},
		{"the old parser", "Lintwerk replaced the old parser and gained a plugin interface.", true},
		{"1,240 people", "Quill employs 1,240 people, up from 1,100.", true},
		{"the GNU General Public License", "Quill is licensed under the GNU General Public License, which permits copying.", true},
		{"Bergen, Norway", "Quill is headquartered in Bergen, Norway, and employs 1,240 people.", true},
		{"Bergen", "Quill has offices in Oslo, Bergen, and Tromsø.", false},
		{"Tromsø", "Quill has offices in Oslo, Bergen, and Tromsø.", false},
		// A script by its language says what it is written in, not what it is.
		{"a perl script", "", false},
		{"a Python script", "", false},
		{"a perl script that rebuilds the certificate links", "", true},
	} {
		var ps []string
		if tc.passage != "" {
			ps = []string{tc.passage}
		}
		if got := AnswerSpecific(tc.answer, ps...); got != tc.want {
			t.Errorf("AnswerSpecific(%q, %q) = %v, want %v", tc.answer, tc.passage, got, tc.want)
		}
	}
}

// TestSpecificQuestions: the subject is named, the question is as long as
// a person writes one, and "now" comes with the release it refers to.
func TestSpecificQuestions(t *testing.T) {
	for _, tc := range []struct {
		question, head, answer, passage string
		want                            bool
	}{
		{"What does Lintwerk support?", "Lintwerk", "YAML", "Lintwerk supports YAML.", true},
		{"What does the package provide?", "The package", "a plugin interface", "", false},
		{"What does this library require?", "This library", "libquill", "", false},
		{"What does it require?", "it", "libquill", "", false},
		{"What does the C source require?", "The C source", "a C99 compiler", "", false},
		{"What do later Quill releases use?", "Later Quill releases", "a new parser", "", false},
		{"What does the Quill Project thank?", "The Quill Project", "the Quill Foundation", "", true},
		{"What does the --fast option select?", "the --fast option", "level 1", "", true},
		{"What does Occasionally Quill print?", "Occasionally Quill", "a warning", "", false},
		{"What was the related Quill setuptools module modified in?", "the related Quill setuptools module", "Debian", "", false},
		{"What does the same Quill option select?", "the same Quill option", "level 1", "", false},
		// A term asked with its definition's article is any one of them.
		{"What is a quill journal?", "A quill journal", "a temporary file used to implement atomic commit", "", true},
		{"What does a quill journal hold?", "A quill journal", "the old pages", "", false},
		// "now" without its release, in the question or in the sentence.
		{"What does Lintwerk now use?", "Lintwerk", "libquill", "", false},
		{"What does Lintwerk use?", "Lintwerk", "libquill", "Lintwerk now uses libquill. It is fast.", false},
		{"What does Lintwerk no longer read?", "Lintwerk", "INI files", "", false},
		{"In Lintwerk 2.5, what does Lintwerk now use?", "Lintwerk (Lintwerk 2.5)", "libquill", "Lintwerk now uses libquill.", true},
		{"What does Lintwerk use as of April 2026?", "Lintwerk", "libquill", "Lintwerk now uses libquill.", true},
		// A changelog bullet's imperative, a comment, "this release".
		{"What did Map deprecate?", "Map", "RSA algo number", "Changes:\n  - Map deprecated RSA algo number to the RSA algo number.\n", false},
		{"What does Wget support?", "Wget", "IPv6", "Changes:\n  - Wget supports IPv6.\n", true},
		{"What did Wget add?", "Wget", "IPv6 support", "Changes:\n  - Wget added IPv6 support in the 1.10 branch.\n", false},
		{"What did Quill support?", "// Support", "dotted paths", "", false},
		{"What is ESM support?", "ESM support", "100%", "As of this release, ESM support is 100%.", false},
		// Longer than a person writes.
		{"What does the Lintwerk plugin interface that the Quill Project designed for the editors and translators of the Nordic countries in the long years before the first stable release of Quillsh and its manual provide?",
			"Lintwerk", "hooks", "", false},
	} {
		var ps []string
		if tc.passage != "" {
			ps = []string{tc.passage}
		}
		if got := QuestionSpecific(tc.question, tc.head, tc.answer, ps...); got != tc.want {
			t.Errorf("QuestionSpecific(%q, %q) = %v, want %v", tc.question, tc.head, got, tc.want)
		}
	}
}

// TestOneAnswerInChunk: a single-hop question is asked only when its
// chunk names one answer for its subject and relation.
func TestOneAnswerInChunk(t *testing.T) {
	for _, tc := range []struct {
		head, relation, tail, chunk string
		ambiguous                   bool
	}{
		{"Lintwerk", "supports", "YAML", "Lintwerk supports YAML. It also supports TOML.", true},
		{"Lintwerk", "supports", "YAML", "Lintwerk supports YAML.\n\nLintwerk supports TOML too.", true},
		{"Lintwerk", "supports", "YAML", "Lintwerk supports YAML. It is fast.", false},
		{"Lintwerk", "supports", "YAML", "Lintwerk supports YAML. Lintwerk supports YAML files of any size.", false},
		{"Lintwerk", "is", "a linter", "Lintwerk is a linter. Lintwerk is also a formatter.", true},
		{"Lintwerk", "is", "a linter", "Lintwerk is a linter. It is a good idea to run it daily.", false},
		{"Lintwerk", "supports", "YAML", "Lintwerk supports YAML. The format is old. It supports comments.", false},
		{"Lintwerk", "is", "a linter", "Lintwerk is a linter. It is fast and small.", false},
		// A pronoun before the subject is named is about something else.
		{"Lintwerk", "supports", "YAML", "It supports TOML. Lintwerk supports YAML.", false},
		{"Lintwerk", "is maintained by", "Oda Rasmussen", "Lintwerk is maintained by Oda Rasmussen. It is also maintained by Per Holm.", true},
	} {
		if got := otherAnswerInChunk(tc.head, tc.relation, tc.tail, tc.chunk); got != tc.ambiguous {
			t.Errorf("otherAnswerInChunk(%q, %q, %q, %q) = %v, want %v", tc.head, tc.relation, tc.tail, tc.chunk, got, tc.ambiguous)
		}
	}
	// Build turns the ambiguous fact down with its reason.
	tr := &schemas.Triplet{TripletID: "t1", Head: "Lintwerk", Relation: "supports", Tail: "YAML", Kind: "verb",
		ChunkID: "c1", DocID: "d1", SourceSentence: "Lintwerk supports YAML.", ChunkText: "Lintwerk supports YAML. It also supports TOML."}
	if q, why := Build(tr); q != nil || why != RejectAmbiguous {
		t.Errorf("Build: %v, %q; want no question, %q", q, why, RejectAmbiguous)
	}
	tr.ChunkText = "Lintwerk supports YAML. It is fast."
	if q, why := Build(tr); q == nil || q.Question != "What does Lintwerk support?" {
		t.Errorf("Build: %v, %q; want \"What does Lintwerk support?\"", q, why)
	}
}

// TestChecksListAndVague: the rule checks turn down a list answer, one
// item of a list and a generic subject, each under its own check.
func TestChecksListAndVague(t *testing.T) {
	chunk := "The Quill Project thanks Oda Rasmussen, Per Holm, Kari Nord and Ivar Lie."
	s, ok := Checks("Who does the Quill Project thank?", "The Quill Project", "Per Holm", []string{chunk})
	if ok || s[CheckAnswerSpecific] != 0 || s[CheckQuestionSpecific] != 1 {
		t.Errorf("an item of a list: %v %v", s, ok)
	}
	s, ok = Checks("What does the package provide?", "The package", "a plugin interface", []string{"The package provides a plugin interface."})
	if ok || s[CheckQuestionSpecific] != 0 || s[CheckAnswerSpecific] != 1 {
		t.Errorf("a generic subject: %v %v", s, ok)
	}
	s, ok = Checks("What does Lintwerk provide?", "Lintwerk", "a plugin interface", []string{"Lintwerk provides a plugin interface."})
	if !ok {
		t.Errorf("a named subject and a definite answer: %v %v", s, ok)
	}
	if _, why := WellFormed("What does Lintwerk support?", "YAML, TOML and INI"); why != CheckAnswerSpecific {
		t.Errorf("WellFormed of a list answer failed %q, want %q", why, CheckAnswerSpecific)
	}
	// What a definition's relative clause coordinates describes one thing;
	// a definition naming two things is a list.
	if _, why := WellFormed("What is Lintwerk?", "a program which merges quill and fjord files"); why != "" {
		t.Errorf("WellFormed of a definition with a relative clause failed %q", why)
	}
	if _, why := WellFormed("What does Lintwerk merge?", "quill and fjord files"); why != CheckAnswerSpecific {
		t.Errorf("WellFormed of two things merged failed %q, want %q", why, CheckAnswerSpecific)
	}
	// A file named by its extension is named.
	if s, _ := WellFormed("What does the .qz file define?", "the layout of the fjord"); s[CheckSubjectNamed] != 1 {
		t.Errorf("a file named by its extension: %v", s)
	}
}

// TestPassiveLemmas: participles back to the verb a question conjugates
// ("is provided by" → "provides", "was added" → "add").
func TestPassiveLemmas(t *testing.T) {
	for p, want := range map[string]string{"provided": "provide", "added": "add", "avoided": "avoid", "loaded": "load",
		"included": "include", "maintained": "maintain", "written": "write", "built": "build", "shipped": "ship",
		"padded": "pad", "decoded": "decode", "found": "find"} {
		if got := lemmaOfParticiple(p); got != want {
			t.Errorf("lemmaOfParticiple(%q) = %q, want %q", p, got, want)
		}
	}
	for l, want := range map[string]string{"maintain": "maintains", "carry": "carries", "push": "pushes", "have": "has",
		"depend on": "depends on", "play": "plays"} {
		if got := thirdPersonOf(l); got != want {
			t.Errorf("thirdPersonOf(%q) = %q, want %q", l, got, want)
		}
	}
}

// TestTableRowsNamed: a table's row is asked only when the question names
// its entity: the row itself, or the caption or heading above it.
func TestTableRowsNamed(t *testing.T) {
	for _, tc := range []struct{ row, column, cell, chunk, want string }{
		{"Cold-chain logistics", "Q1 2025", "412", "## Segment revenue\n\n| Segment | Q1 2025 |\n|---|---|\n| Cold-chain logistics | 412 |\n", ""},
		{"Cold-chain logistics", "Q1 2025", "412", "## Segment revenue (NOK million)\n\n| Segment | Q1 2025 |\n|---|---|\n| Cold-chain logistics | 412 |\n", ""},
		{"Cold-chain logistics", "Q1 2025", "412", "## Northwind Freight segment revenue\n\n| Segment | Q1 2025 |\n|---|---|\n| Cold-chain logistics | 412 |\n",
			`In "Northwind Freight segment revenue", what was the figure for cold-chain logistics in Q1 2025?`},
		{"lz4 1.9.3", "Ratio", "2.101", "## Benchmarks\n\n| Compressor | Ratio |\n|---|---|\n| lz4 1.9.3 | 2.101 |\n",
			`What is the ratio of lz4 1.9.3 in "Benchmarks"?`},
		// A caption's dotted number goes; a list item or a sentence above
		// the table is no caption (the heading is used instead).
		{"number", "PostgreSQL type", "numeric", "Table 8.23. JSON Primitive Types and Corresponding PostgreSQL Types\n\n| JSON type | PostgreSQL type |\n|---|---|\n| number | numeric |\n",
			`What is the PostgreSQL type of number in "JSON Primitive Types and Corresponding PostgreSQL Types"?`},
		{"pi", "Speedup", "120x", "## Decimal\n\nThe following table is meant as an illustration. Benchmarks are available online.\n\n| Run | Speedup |\n|---|---|\n| pi | 120x |\n",
			`What is the speedup of pi in "Decimal"?`},
		{"MAX_PREC", "Limit", "425000000", "## API changes\n\n- The C module has these context limits, depending on the machine:\n\n| Name | Limit |\n|---|---|\n| MAX_PREC | 425000000 |\n",
			`What is the limit of MAX_PREC in "API changes"?`},
		// A lead-in sentence ending with a colon is no caption (the
		// heading is used instead); a heading's section number goes.
		{"quillz", "Size", "412", "## 4.1. Fjord tools\n\nConsider this example:\n\n| Package | Size |\n|---|---|\n| quillz | 412 |\n",
			`What is the size of quillz in "Fjord tools"?`},
		{"quillz", "Size", "412", "## Fjord tools\n\nHowever, if the archive drops a package (here quillz):\n\n| Package | Size |\n|---|---|\n| quillz | 412 |\n",
			`What is the size of quillz in "Fjord tools"?`},
		// A title-cased header is lower-cased word by word; a row that
		// describes what it does names nothing.
		{"overlaps", "Strategy Number", "3", "## Two-Dimensional Fjord Strategies\n\n| Operation | Strategy Number |\n|---|---|\n| overlaps | 3 |\n",
			`What is the strategy number of overlaps in "Two-Dimensional Fjord Strategies"?`},
		{"does not extend to right of", "Strategy Number", "2", "## Two-Dimensional Fjord Strategies\n\n| Operation | Strategy Number |\n|---|---|\n| does not extend to right of | 2 |\n",
			`What is the strategy number of "does not extend to right of" in "Two-Dimensional Fjord Strategies"?`},
		{"Compute the 32-bit hash value for a key", "Support Number", "1", "## Quill Support Functions\n\n| Function | Support Number |\n|---|---|\n| Compute the 32-bit hash value for a key | 1 |\n", ""},
		// A row naming a task, beside the command that does it; a row
		// with a placeholder or naming a list is not asked this way.
		{"Shut down the fjord", "Command snippets", "`quillctl poweroff`", "## List of quillctl command snippets\n\n| Operation | Command snippets |\n|---|---|\n| Shut down the fjord | `quillctl poweroff` |\n",
			`In "List of quillctl command snippets", which command shuts down the fjord?`},
		{"Shut down and reboot the fjord", "Command snippets", "`quillctl reboot`", "## List of quillctl command snippets\n\n| Operation | Command snippets |\n|---|---|\n| Shut down and reboot the fjord | `quillctl reboot` |\n",
			`In "List of quillctl command snippets", which command shuts down and reboots the fjord?`},
		{"Stop \"$unit\"", "Command snippets", "`quillctl stop $unit`", "## List of quillctl command snippets\n\n| Operation | Command snippets |\n|---|---|\n| Stop \"$unit\" | `quillctl stop $unit` |\n", ""},
		{"List of all units", "Command snippets", "`quillctl units`", "## List of quillctl command snippets\n\n| Operation | Command snippets |\n|---|---|\n| List of all units | `quillctl units` |\n", ""},
		// A plural header takes a plural verb.
		{"segid", "Contents", "the segment id", "## Fjord Segment Format\n\n| Field | Contents |\n|---|---|\n| segid | the segment id |\n",
			`What are the contents of segid in "Fjord Segment Format"?`},
		{"quillz", "Supported platforms", "Linux", "## Fjord tools\n\n| Package | Supported platforms |\n|---|---|\n| quillz | Linux |\n",
			`What are the supported platforms of quillz in "Fjord tools"?`},
		// A header that is no noun is not asked with "What is the …".
		{"MAX_PREC", "64-bit", "999999999999999999", "## Context limits\n\n| Name | 64-bit |\n|---|---|\n| MAX_PREC | 999999999999999999 |\n", ""},
	} {
		line := "| " + tc.row + " | " + tc.cell + " |"
		got, ok := SingleFor("table", tc.row, tc.column, tc.cell, line, tc.chunk, time.Time{})
		if tc.want == "" {
			if ok {
				t.Errorf("row %q under %q: got %q, want none", tc.row, tc.chunk[:30], got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("row %q: %q, %v; want %q", tc.row, got, ok, tc.want)
		}
	}
}

// TestAnchorOfTheFact: a time expression in an inserted clause belongs to
// that clause's event, not to the fact asked.
func TestAnchorOfTheFact(t *testing.T) {
	for _, tc := range []struct{ head, relation, tail, sentence, want string }{
		{"Acme Corp", "acquired", "Beta Inc.", "Acme Corp, founded in 1998, acquired Beta Inc. in 2024.", "What did Acme Corp acquire in 2024?"},
		{"Acme Corp", "acquired", "Beta Inc.", "Acme Corp, founded in 1998, acquired Beta Inc.", "What did Acme Corp acquire?"},
		{"Quill", "supports", "YAML", "Quill (first released in 2019) supports YAML.", "What does Quill support?"},
		{"Helios Energy", "appointed", "Laura Sato", "In Q3 2025, Helios Energy appointed Laura Sato as chief financial officer.",
			"Whom did Helios Energy appoint as chief financial officer in Q3 2025?"},
	} {
		if got, ok := Single(tc.head, tc.relation, tc.tail, tc.sentence, time.Time{}); !ok || got != tc.want {
			t.Errorf("Single(%q) = %q, %v; want %q", tc.sentence, got, ok, tc.want)
		}
	}
}
