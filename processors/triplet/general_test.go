package triplet

import "testing"

// TestExtractGeneral: the guards and shapes of general.go (docs/methods.md,
// Triplet extraction), each with sentences that must yield the fact and
// sentences of the same look that must not. Names are invented.
func TestExtractGeneral(t *testing.T) {
	for _, tc := range []struct{ text, head, relation, tail, kind string }{
		// A definition completed by a reduced relative clause: a
		// participle with its preposition, a present participle with its
		// object; an acronym in parentheses inside the genus (a genus
		// with a name ends before a participle, as before).
		{"Quillnet is a protocol allowing remote access to a Fjord share through the network.", "Quillnet", "is", "a protocol allowing remote access to a Fjord share through the network", KindCopula},
		{"A quillet is a process started automatically by the Fjord sequence.", "A quillet", "is", "a process started automatically by the Fjord sequence", KindCopula},
		{"Quillguard is a Fjord Access Control (FAC) system built on the Quill Security Modules interface.", "Quillguard", "is", "a Fjord Access Control (FAC) system", KindCopula},
		{"Quillnet is a protocol allowing it to reach a Fjord share.", "", "", "", ""},
		{"Quillnet is a protocol built on Fjord, which you can extend.", "Quillnet", "is built on", "Fjord", KindVerb},
		{"Quillview is a fork of the Fjord viewer developed by Oda Rasmussen.", "Quillview", "is", "a fork of the Fjord viewer", KindCopula},
		{"Quillmusic is an extensible music server written in Python.", "Quillmusic", "is written in", "Python", KindVerb},
		// "part of" with a named subject that opens with "the"; an
		// introductory "Like X," before the subject.
		{"The Quill server is part of the Fjord kernel.", "The Quill server", "is part of", "the Fjord kernel", KindCopula},
		{"The server is part of the Fjord kernel.", "", "", "", ""},
		{"Like Fjordpad, Quillpad is based on the Quill toolkit.", "Quillpad", "is based on", "the Quill toolkit", KindVerb},
		// Found by the second fresh sample: a dated event whose object is
		// a pronoun; a name defined by a phrase cut inside a list or
		// holding a participle; a place the tags cut before its noun
		// ("files/VBZ") goes on to it; "have been" agrees with its plural
		// subject.
		{"Oda Rasmussen largely restructured it in 2001.", "", "", "", ""},
		{"Oda Rasmussen largely restructured the Quill manual in 2001.", "Oda Rasmussen", "restructured in", "2001", KindVerb},
		{"Quilltools is the Fjord build system comprising Quillconf, Quillmake, and gettext.", "", "", "", ""},
		{"The Quill Configuration Specification is included in the quill_specification files in the quill-policy package.", "The Quill Configuration Specification", "is included in", "the quill_specification files", KindVerb},
		{"The Quill data tables have been updated to Unicode 7.0.0.", "The Quill data tables", "were updated to", "Unicode 7.0.0", KindVerb},
		// An identifier before its kind names the subject; the verb after
		// a name and its kind is a verb, not a plural noun; an option
		// names nothing without its program.
		{"The .qz file defines the quill contexts of the module.", "The .qz file", "defines", "the quill contexts of the module", KindVerb},
		{"The quill/control file contains the metadata of the source package.", "The quill/control file", "contains", "the metadata of the source package", KindVerb},
		{"The Quillgate directive controls access restrictions for a directory.", "The Quillgate directive", "controls", "access restrictions for a directory", KindVerb},
		{"The mod_quill module rewrites requested addresses on the fly.", "", "", "", ""},
		{"The -q option lists the quill contexts of the module.", "", "", "", ""},
		// A host name is a name; a definition goes on through "amongst",
		// "between" …; a vague object is made specific by a "for" phrase
		// naming something, with a place after it.
		{"quill-private@lists.quill.org is a special mailing list for private discussions amongst Quill developers.", "quill-private@lists.quill.org", "is", "a special mailing list for private discussions amongst Quill developers", KindCopula},
		{"The icon code in Quillkit 2.6 follows the quill.org icon theme specification.", "The icon code in Quillkit 2.6", "follows", "the quill.org icon theme specification", KindVerb},
		{"Quillhi provides a framework for Fjord Service Discovery on Quill.", "Quillhi", "provides", "a framework for Fjord Service Discovery on Quill", KindVerb},
		{"Quillhi provides a framework for service discovery on Quill.", "", "", "", ""},
		// A passive with "into"/"to" and a name: where the subject went;
		// an update needs its version; a case described before holds
		// only there.
		{"Unlike other systems, Quillvm was merged into the Fjord kernel from the start.", "Quillvm", "was merged into", "the Fjord kernel", KindVerb},
		{"In this case, the variable HAVE_QUILL is set to Fjord.", "", "", "", ""},
		{"The variable HAVE_QUILL is set to Fjord.", "The variable HAVE_QUILL", "is set to", "Fjord", KindVerb},
		// What a thing is used to do; a genus completed by "where" and a
		// clause with its own subject.
		{"The Quillien package is used to convert between different Fjord formats.", "The Quillien package", "is used to", "convert between different Fjord formats", KindVerb},
		{"The Quillien package is used to it.", "", "", "", ""},
		{"QUILL-DIR is a directory where Fjord archive files are stored.", "QUILL-DIR", "is", "a directory where Fjord archive files are stored", KindCopula},
		{"QUILL-DIR is a directory where you store files.", "", "", "", ""},
		// "gives" with a determined object (not the one who receives);
		// an object a "who"/"where" clause must complete.
		{"The Quillpkg field gives the package name.", "The Quillpkg field", "gives", "the package name", KindVerb},
		{"Quill gives users a choice of editors.", "", "", "", ""},
		{"The Quill tool gives the user a choice.", "", "", "", ""},
		{"The Quillmaint field gives the e-mail address of the person who is responsible for the package.", "", "", "", ""},
		{"The Quill signature provides the proof that these files are really yours.", "", "", "", ""},
		// A colon after a singular object and before a pronoun explains
		// it; before anything else, or after a plural, it announces items.
		{"The Quillpad tool defines the layout of the fjord: it is read at start.", "The Quillpad tool", "defines", "the layout of the fjord", KindVerb},
		{"High-level balanced QuillConsumer: a consumer of fjords.", "", "", "", ""},
		{"The Quillpad tool defines two layouts: it reads both.", "", "", "", ""},
		// A named subject holding a role of a named thing: the role is
		// asked, the subject answers.
		{"The Fjord Software Consortium is the main author of the Quill server.", "the main author of the Quill server", "is", "The Fjord Software Consortium", KindCopula},
		{"The Fjord Software Consortium is the main author of many servers.", "", "", "", ""},
		// A complement that is the one thing of its kind in a named scope is
		// asked for the subject; without the scope it is neither way round.
		{"Glass is the default backend in Quill 1.4.x.", "the default backend in Quill 1.4.x", "is", "Glass", KindCopula},
		{"Fjordmail is the recommended mail server for Quillpad.", "the recommended mail server for Quillpad", "is", "Fjordmail", KindCopula},
		{"Glass is the default backend.", "", "", "", ""},
		// Another name of a named subject.
		{"Quill is known as Sid.", "Quill", "is known as", "Sid", KindVerb},
		{"Quill is known as a fast editor.", "", "", "", ""},
		{"This is the default backend in Quill 1.4.x.", "", "", "", ""},
		// A plural term is defined without an article.
		{"Debug packages are packages that contain the detached symbols of a program.", "debug packages", "are", "packages that contain the detached symbols of a program", KindCopula},
		{"Most packages are packages that contain the detached symbols of a program.", "", "", "", ""},
		{"Debug packages are the ones that contain the detached symbols of a program.", "", "", "", ""},
		{"Debug packages are many.", "", "", "", ""},
		{"Use Quill to pack. Quill packages are packages that contain the detached symbols of a program.", "Quill packages", "are", "packages that contain the detached symbols of a program", KindCopula},
		// A plural subject whose noun the tagger reads as a verb.
		{"The core Fjord tools support Quillsec without any change.", "The core Fjord tools", "support", "Quillsec", KindVerb},
		// A vague object made specific by a phrase naming something.
		{"quillz produces files with a .qz extension.", "quillz", "produces", "files with a .qz extension", KindVerb},
		{"Quillpad provides extensions for quill_core.", "Quillpad", "provides", "extensions for quill_core", KindVerb},
		{"Quillpad produces files with a long name.", "", "", "", ""},
		{"Quillpad produces files with a .qz extension and a header.", "", "", "", ""},
		// A passive whose place or basis is a name written as code.
		{"libquill was originally based on libfjord/SIMD, a derivative of libfjord.", "libquill", "was based on", "libfjord/SIMD", KindVerb},
		{"Quillpad is based on a simple idea.", "", "", "", ""},
		{"Quillpad is based in Trondheim.", "Quillpad", "based in", "Trondheim", KindAttribute},
		// Coordinated participles before the agent; an address after a name.
		{"Quillpad is maintained, enhanced, and distributed freely by the Fjord Community.", "Quillpad", "is maintained by", "the Fjord Community", KindVerb},
		{"The Quillpad module was written by Oda Rasmussen <oda@quill.example>.", "The Quillpad module", "was written by", "Oda Rasmussen", KindVerb},
		// A release-note bullet announcing a change is no fact about its subject.
		{"New command ESC-q removes a quill mark.", "", "", "", ""},
		{"Added option --quill sets the Fjord mode.", "", "", "", ""},
		{"Improved parser handles the Fjord syntax.", "", "", "", ""},
		{"Quillpad removes the Fjord mark.", "Quillpad", "removes", "the Fjord mark", KindVerb},
		// No article before a name with its release in it.
		{"The Quillpad-3.5.1 corrects the Fjord decoder.", "Quillpad-3.5.1", "corrects", "the Fjord decoder", KindVerb},
		{"The Quillpad-3.5.1 release corrects the Fjord decoder.", "The Quillpad-3.5.1 release", "corrects", "the Fjord decoder", KindVerb},
		// Bare identifiers and numbers are not objects.
		{"Fjordsec assigned CVE-2031-12345.", "", "", "", ""},
		{"Quillpad fixes bug #4412.", "", "", "", ""},
		{"Word boundaries 6.7.5.", "", "", "", ""},
		{"Quillpad uses 4 tables.", "Quillpad", "uses", "4 tables", KindVerb},
		// An address after "is at"; only for a subject that is an address.
		{"Quillpad's home page is at <https://quill.example/docs/>.", "Quillpad's home page", "is", "https://quill.example/docs/", KindCopula},
		{"Quillpad's manual is at <https://quill.example/docs/>.", "", "", "", ""},
		// An agent that is a named group; an apposition after the agent.
		{"Quillpad is maintained by the Fjord community.", "Quillpad", "is maintained by", "the Fjord community", KindVerb},
		{"Quillpad is maintained by the Fjord manual.", "", "", "", ""},
		{"Quillpad development is hosted by Savanna, the Fjord online development tool.", "Quillpad development", "is hosted by", "Savanna", KindVerb},
		{"Quillpad development is hosted by Savanna, the Fjord tool and Lintwerk.", "", "", "", ""},
		// Adjectives and a name before the noun of a definition.
		{"Quillpad is a free, LGPL implementation of Quill.", "Quillpad", "is", "a free, LGPL implementation of Quill", KindCopula},
		// A capitalized program name that reads as a verb in lower case
		// ("sed") opens a definition, not an instruction.
		{"Sed is a non-interactive editor.", "Sed", "is", "a non-interactive editor", KindCopula},
		{"Fix the parser of Quillpad.", "", "", "", ""},
		// Written bare in lower case elsewhere in the chunk it is still a
		// name; written after a determiner it is a common noun.
		{"Use quillz to pack. Quillz is a non-interactive packer.", "Quillz", "is", "a non-interactive packer", KindCopula},
		{"The packer is small. Packer is a non-interactive tool for Fjord files.", "", "", "", ""},
		// "The two …" stands for things named before; a vague plural
		// after a name is a kind of thing, not one.
		{"The two Fjord scripts use the quillz -R option.", "", "", "", ""},
		{"Quillpad policy references Fjord helper tools.", "", "", "", ""},
		{"Quillpad references the Fjord helper tool.", "Quillpad", "references", "the Fjord helper tool", KindVerb},
		{"Oda Rasmussen joined the board of Kvarts Battery Systems.", "Oda Rasmussen", "joined", "the board of Kvarts Battery Systems", KindVerb},
		// A figure of a common noun opening the sentence names nothing.
		{"Price is $350 in the Fjord states.", "", "", "", ""},
		{"Quillbase's price is $350.", "Quillbase's price", "is", "$350", KindCopula},
		// "The NAME package is …" defines the package's name.
		{"The quill-utils package is a parser for Fjord files.", "quill-utils", "is", "a parser for Fjord files", KindCopula},
		{"The Fjord Project is a parser for Fjord files.", "The Fjord Project", "is", "a parser for Fjord files", KindCopula},
		{"The package file is a parser for Fjord files.", "", "", "", ""},
		// An object restricted by a relative clause; a path is only described by one.
		{"FJORD_STRICT disables Lint extensions that violate the Fjord standard.", "", "", "", ""},
		{"The package quillpad-tools ships a script /usr/lib/quillpad/q.cgi that you must install by hand.", "The package quillpad-tools", "ships", "a script /usr/lib/quillpad/q.cgi", KindVerb},
		// A count restricted or compared by what follows it.
		{"Quillpad has two options that serve the same purpose as Lintwerk's -n option.", "", "", "", ""},
		{"In the 8-bit library, Quillpad then uses three bytes instead of two for offsets.", "", "", "", ""},
		// A list item that ends without a period names a feature; an item
		// that is a sentence is read.
		{"Features:\n\n  * High-level balanced FjordConsumer (needs Quill >= 0.9)\n  * Admin client\n", "", "", "", ""},
		{"Features:\n\n  1. Quillpad is a parser for Fjord files.\n", "Quillpad", "is", "a parser for Fjord files", KindCopula},
		{"Notes:\n\n  2) Quillpad reads Fjord files (and Lint files)\n", "", "", "", ""},
		// An object under a condition holds only under it.
		{"In 2.8, Quillpad emits FjordGrabBroken events when a grab is broken.", "", "", "", ""},
		{"Quillpad emits FjordGrabBroken events, if the grab is broken.", "", "", "", ""},
		{"Quillpad emits FjordGrabBroken events.", "Quillpad", "emits", "FjordGrabBroken events", KindVerb},
		// Someone helped to do something: no object to ask for.
		{"Later, Oda quietly helped the Fjord package maintainer fix bugs.", "", "", "", ""},
		// What an abbreviation stands for: one name.
		{"QPL stands for Quill Public License.", "QPL", "stands for", "Quill Public License", KindVerb},
		{"QPL stands for the Quill Public License, a licence.", "QPL", "stands for", "the Quill Public License", KindVerb},
		{"QPL stands for Quill Public License and Fjord.", "", "", "", ""},
		// A release named in lower case is a name.
		{"libquill-3.4.4 was released on October 23, 2022.", "libquill-3.4.4", "was released on", "October 23, 2022", KindVerb},
		// A sentence drawing on the one before holds only in its case.
		{"Hence quillc aligns the Fjord element array on a 4 byte boundary.", "", "", "", ""},
		{"Thus Quillpad reads the Fjord format.", "", "", "", ""},
		// A passive coordinated with the main clause has the same subject.
		{"The Quill project’s infrastructure is located all over the world and is managed by the Fjord Infrastructure Team.",
			"The Quill project’s infrastructure", "is managed by", "the Fjord Infrastructure Team", KindVerb},
		{"Quillpad is written in C and is maintained by the Fjord Group.", "Quillpad", "is maintained by", "the Fjord Group", KindVerb},
		{"Quillpad reads Lint files because Lintwerk is maintained by the Fjord Group.", "", "", "", ""},
		{"Quillpad reads Lint files, and is maintained by the Fjord Group.", "", "", "", ""},
		// A definition up to an abbreviation in parentheses and the
		// participle after it; "into" opens a phrase of a definition.
		{"Quillbase is an object-relational database management system (ORDBMS) based on Fjord, developed at Lint University.",
			"Quillbase", "is", "an object-relational database management system", KindCopula},
		{"Quillc is an up-and-coming compiler of Fjord into C++ code, aiming to support the whole language.", "Quillc", "is", "an up-and-coming compiler of Fjord into C++ code", KindCopula},
		// A move to a release.
		{"Quillpad has been updated to Unicode 6.0.0.", "Quillpad", "was updated to", "Unicode 6.0.0", KindVerb},
		{"Quillpad has been updated to the Fjord rules.", "", "", "", ""},
		// A count of what something comes with.
		{"Quillpad comes with two testing frameworks.", "Quillpad", "comes with", "two testing frameworks", KindVerb},
		{"Quillpad comes with two testing frameworks and a debugger.", "", "", "", ""},
		// "The PEP" is the one mentioned before; "PEP 393" names one.
		{"The PEP differentiates so-called Fjord strings.", "", "", "", ""},
		{"The PEP was written by Oda Rasmussen.", "", "", "", ""},
		{"PEP 393 was written by Oda Rasmussen.", "PEP 393", "was written by", "Oda Rasmussen", KindVerb},
		// A figure that goes on as a range or a comparison is not the
		// figure; a definite phrase for a slot any value fills names none.
		{"The memory usage of Quillpad 3.3 is two to three times smaller than Quillpad 3.2.", "", "", "", ""},
		{"The memory usage of Quillpad 3.3 is 30% lower than before.", "", "", "", ""},
		{"The memory usage of Quillpad 3.3 is 12 MB.", "The memory usage of Quillpad 3.3", "is", "12 MB", KindCopula},
		{"NN is the Quillpad version, a number such as 33 for Quillpad 3.3.", "", "", "", ""},
		// A capitalized plural opening the sentence is a common noun;
		// a name the tagger misreads as a plural is still a name.
		{"Candidates included Quill’s cond and 16 other variations.", "", "", "", ""},
		{"Vik took up the position on 5 January 2026.", "Vik", "took up on", "5 January 2026", KindVerb},
		// After "for example" a comma and a noun phrase are an ellipsis.
		{"Quill-trees require a comparison support function.\n\nUnlike search operators, support functions return whichever data type the particular index method expects; for example in the case of the comparison function for Quill-trees, a signed integer.",
			"Quill-trees", "require", "a comparison support function", KindVerb},
		{"The parser was written by Lintwerk, a Fjord company.", "Lintwerk", "is", "a Fjord company", KindCopula},
		// A number word as subject is a value of the setting just described.
		{"Zero disables the Fjord warning.", "", "", "", ""},
		// A version with no name says not of what.
		{"Version 1, described in a paper, was released to a few external users in June 1989.", "", "", "", ""},
		{"Quill Desktop was released to a few external users in June 1989.", "Quill Desktop", "was released in", "June 1989", KindVerb},
		{"Fjord 3.1 was released on June 27, 2009.", "Fjord 3.1", "was released on", "June 27, 2009", KindVerb},
		// The typographic apostrophe of HTML pages is an apostrophe.
		{"Quillpad’s home page is at <https://quill.example/docs/>.", "Quillpad’s home page", "is", "https://quill.example/docs/", KindCopula},
		{"Fjordline’s chief executive, Oda Rasmussen, visited Lintwerk.", "Fjordline", "chief executive", "Oda Rasmussen", KindAttribute},
		{"Quillpad doesn’t read Fjord files.", "", "", "", ""},
		// A phrasal verb written as one word is asked as the verb.
		{"The Fjord Group project has been setup on Quill Forge.", "The Fjord Group project", "was set up on", "Quill Forge", KindVerb},
		// An adjective whose prepositional phrase is the fact; "for"
		// takes a gerund phrase that is the rest of the sentence.
		{"The Quillpad daemon is responsible for collecting Fjord packets and storing them in the Quill archive.", "The Quillpad daemon", "is responsible for", "collecting Fjord packets and storing them in the Quill archive", KindCopula},
		{"The Quillpad daemon is responsible for collecting Fjord packets, if you enable it.", "", "", "", ""},
		{"The Quillpad daemon is responsible for your packages.", "", "", "", ""},
		{"Quillpad is compatible with Fjord 2.0.", "Quillpad", "is compatible with", "Fjord 2.0", KindCopula},
		{"Quillpad is compatible with Fjord 2.0 and Lintwerk 3.", "", "", "", ""},
		{"QPF is short for Quill Packet Format.", "QPF", "is short for", "Quill Packet Format", KindCopula},
		{"Quillpad is available from https://quill.example/get.", "Quillpad", "is available from", "https://quill.example/get", KindCopula},
		{"Quillpad is available in many formats.", "", "", "", ""},
		// Named only by the capital of the sentence's first word.
		{"Release tarballs are available from https://quill.example/get.", "", "", "", ""},
		// A participle of purpose: "is used for", "is designed for".
		{"The Quillpad daemon is used for caching Fjord replies on the local machine.", "The Quillpad daemon", "is used for", "caching Fjord replies on the local machine", KindVerb},
		{"Quillpad is intended for Fjord servers.", "Quillpad", "is intended for", "Fjord servers", KindVerb},
		{"Quillpad is used for testing.", "", "", "", ""},
		{"Quillpad is used for many things.", "", "", "", ""},
		// A path a file is installed as.
		{"The Quillpad changelog is installed as /usr/share/doc/quillpad/NEWS.gz.", "The Quillpad changelog", "is installed as", "/usr/share/doc/quillpad/NEWS.gz", KindVerb},
		// "a total of" before a count; a count written as a word.
		{"Quillpad 9 supports a total of ten Fjord processors.", "Quillpad 9", "supports", "ten Fjord processors", KindVerb},
		// An address as the subject of a definition.
		{"quill-devel@lists.quill.example is a mailing list for the Quillpad developers.", "quill-devel@lists.quill.example", "is", "a mailing list for the Quillpad developers", KindCopula},
		// The definition of a term: an indefinite subject of at most four
		// words, one of them making it a term, and a definition that says
		// more than its genus.
		{"A quill package is a package that contains the Fjord symbols of a program.", "A quill package", "is", "a package that contains the Fjord symbols of a program", KindCopula},
		{"A quill package is a name that several packages provide.", "", "", "", ""},
		{"A good example is a package with the Fjord symbols.", "", "", "", ""},
		{"A quill package is a package that you build.", "", "", "", ""},
		// An indefinite subject introduces something; it is not a name to
		// ask about.
		{"A new Fjord-only codec has been added. It is the Quill code page 65001.", "", "", "", ""},
		// A change whose new state follows "to" is not asked without it.
		{"Quillpad 7.8 changed the default Fjord settings to use the Quill mode.", "", "", "", ""},
		{"Quillpad 7.8 uses the Fjord library to draw the Quill fonts.", "Quillpad 7.8", "uses to draw the Quill fonts", "the Fjord library", KindVerb},
		// A name of several words after "the"; an infinitive of purpose
		// completing a definition; a noun the tagger read as an adjective
		// at the end of its phrase.
		{"The Fjord Free Packet Guidelines are the packet standards for Quillpad.", "The Fjord Free Packet Guidelines", "are", "the packet standards for Quillpad", KindCopula},
		{"The Quill Tracker is a web tool to track the activity of a Fjord package.", "The Quill Tracker", "is", "a web tool to track the activity of a Fjord package", KindCopula},
		{"The Quill Tracker is a web tool to track what you upload.", "", "", "", ""},
		{"Quill MP is a library for arbitrary precision arithmetic, operating on signed integers.", "Quill MP", "is", "a library for arbitrary precision arithmetic", KindCopula},
		// A requirement with "must": a place or a named object; "should",
		// a negation or a comparison give nothing.
		{"Public Quill modules must be installed in the system Quill modules directory, /usr/lib/quill/dist-packages.", "public Quill modules", "must be installed in", "/usr/lib/quill/dist-packages", KindVerb},
		{"Architecture-independent public Quill modules must be installed in /usr/share/quill.", "architecture-independent public Quill modules", "must be installed in", "/usr/share/quill", KindVerb},
		{"The quill2 package must depend on the quill2.7 package.", "The quill2 package", "must depend on", "the quill2.7 package", KindVerb},
		{"The quill2 package should depend on the quill2.7 package.", "", "", "", ""},
		{"Existing Quill libraries must not be installed in /usr/lib/quill.", "", "", "", ""},
		{"The version of the quill3 package must be greater than 3.1.", "", "", "", ""},
		// The fresh sample's classes: an apposition whose genus alone
		// precedes a relative clause; a subject pointing into the document
		// or at "this"; "also" before a verb of what a program offers; an
		// unstated amount; a second agent; a definite genus cut before its
		// participle; a judgement for a definition; a vague genus.
		{"The names came from Fjordar, the company that produced the films.", "", "", "", ""},
		{"The first edition of this Quill guide was written by Oda Rasmussen.", "", "", "", ""},
		{"Table 3.1 lists the Quill architectures.", "", "", "", ""},
		{"Quillpad also provides the Fjord protocol.", "", "", "", ""},
		{"Quillpad provides the Fjord protocol.", "Quillpad", "provides", "the Fjord protocol", KindVerb},
		{"The Quill website references a huge number of Fjord distributions.", "", "", "", ""},
		{"The Quill guide was maintained by Oda Rasmussen and, later, by Anders Vik.", "", "", "", ""},
		{"Quillboot is the default bootloader installed by Fjordix.", "", "", "", ""},
		{"Quill's official blog is a good source of information.", "", "", "", ""},
		{"QUILLPREFIX is an optional string.", "", "", "", ""},
		// Lines of a list without points read as one sentence; a bare
		// genus that the sentence goes on to qualify.
		{"QUILL_NO_FJORD disables FJORD\nQUILL_NO_LINT disables LINT\nQUILL_NO_PAD disables PAD", "", "", "", ""},
		{"quill_image is a structure that describes the Fjord format of an image when it is being read.", "", "", "", ""},
		{"quill_stride is the step, in quill_byte units, between adjacent rows.", "", "", "", ""},
		{"Quillboot is a bootloader.", "Quillboot", "is", "a bootloader", KindCopula},
		// What limits a fact makes it no fact to ask alone: a scoping
		// phrase, a hedging or partial adverb, a step of a procedure.
		{"In fjord mode, Quill keeps the index in memory.", "", "", "", ""},
		{"However, Quillpad rejects the Fjord header.", "", "", "", ""},
		{"In Quill 2.1, Fjordpad replaced Quillpad.", "Fjordpad", "replaced", "Quillpad", KindVerb},
		{"Quillpad usually stores the Fjord index.", "", "", "", ""},
		{"Quillpad stores the Fjord index.", "Quillpad", "stores", "the Fjord index", KindVerb},
		{"Only Fjordix supports the Quill protocol.", "", "", "", ""},
		{"Then Quillpad obtains a Fjord lock.", "", "", "", ""},
		// An object that is half of what the verb says.
		{"The Fjord verb puts Quillpad into single-reader mode.", "", "", "", ""},
		{"The Fjord backup API allows the contents of one index to be copied into another.", "", "", "", ""},
		{"Quillpad keeps track of every Fjord lock.", "", "", "", ""},
		{"Quillpad features an API allowing users to write Fjord plugins.", "", "", "", ""},
		{"Quillpad stores the entire 2000-byte record without loss.", "", "", "", ""},
		{"The Fjord system contains a package called quill-stats.", "", "", "", ""},
		{"Quillpad treats the Fjord operator specially.", "", "", "", ""},
		{"The quill.h header file defines Fjord macros QUILL_UTF8 as 1 and QUILL_UTF16 as 2.", "", "", "", ""},
		{"The Fjord operator returns the subset of rows returned by the left query.", "", "", "", ""},
		{"Quillpad computes the entry point for the plugin based on the plugin file name.", "", "", "", ""},
		{"The name was inspired by Fjordutils, the Quill utilities architected by Oda Rasmussen, a component of the Fjord library.", "", "", "", ""},
		{"The Fjord protocol then offers the Quill method.", "", "", "", ""},
		{"Asterisks are valid Fjord characters.", "", "", "", ""},
		{"Fjord quilltools NEWS -- history of user-visible changes.", "", "", "", ""},
		{"Quillpad is a text-based application which interacts with users through menus.", "Quillpad", "is", "a text-based application which interacts with users through menus", KindCopula},
		{"Fjordvine is a non-free library that cannot be distributed by Quill.", "Fjordvine", "is", "a non-free library", KindCopula},
		{"The Fjord Policy provides considerable coverage of the technical aspects of packaging.", "", "", "", ""},
		{"Quillpad passes the Fjord argument to the prerm script.", "", "", "", ""},
		// a term's generic genus takes the participle that says which
		{"A quill journal is a temporary file used to implement atomic commit in Fjord.", "A quill journal", "is", "a temporary file used to implement atomic commit in Fjord", KindCopula},
		// not an English sentence: a translation the page carries, a
		// configuration line, a fragment; "Below" is no subject
		{"Fornece proxies reversos em massa configurados dinamicamente para mod_fjord.", "", "", "", ""},
		{"Permite que aplicativos autorizadores Quill autentiquem e/ou autorizem clientes.", "", "", "", ""},
		{"Header set X-Quill \"bar\"", "", "", "", ""},
		{"DBM based shared object cache.", "", "", "", ""},
		{"Below is an artificial example to show the order of merging.", "", "", "", ""},
		{"Line 1 loads the target Quill file.", "", "", "", ""},
		{"Northwind Bank named Priya Shah chief executive officer.", "Northwind Bank", "named", "Priya Shah", KindVerb},
		// an event of things of a kind, which ones the text around says
		{"CVE IDs were assigned by Fjordcheck.", "", "", "", ""},
		{"Quill users reported a crash in the Fjord parser.", "", "", "", ""},
		{"Quill database files are ordinary disk files.", "quill database files", "are", "ordinary disk files", KindCopula},
		{"The Fjord standard includes a \"Quill Subdivision Code\".", "The Fjord standard", "includes", "a \"Quill Subdivision Code\"", KindVerb},
	} {
		checkExtract(t, tc.text, tc.head, tc.relation, tc.tail, tc.kind)
	}
}

// checkExtract fails unless Extract(text) yields (head | relation | tail)
// of kind, or, for an empty head, nothing but table facts.
func checkExtract(t *testing.T, text, head, relation, tail, kind string) {
	t.Helper()
	got := Extract(text)
	if head == "" {
		for _, x := range got {
			if x.Kind != KindTable {
				t.Errorf("%q: want nothing, got%s", text, show(got))
				return
			}
		}
		return
	}
	if !has(got, head, relation, tail, kind) {
		t.Errorf("%q:\n want (%s | %s | %s) [%s]\n got%s", text, head, relation, tail, kind, show(got))
	}
}
