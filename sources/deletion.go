package sources

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/robustream/robustream/schemas"
)

// MetaDeleted is the metadata key that marks a document version as the
// document's deletion (value "true"). Such a version has no text: the chunk
// stage closes it with one empty chunk, the knowledge graph applies it as a
// version that states nothing, and so the questions the document's facts
// supported retire (docs/architecture.md, Stages).
const MetaDeleted = "deleted"

// emptyHash is the content hash of a deletion: the SHA-256 of no text. A
// second deletion of the same document is therefore unchanged content, and
// a document re-created afterwards is a new version.
var emptyHash = func() string {
	sum := sha256.Sum256(nil)
	return hex.EncodeToString(sum[:])
}()

// Deletion returns the version that retires the document docID of source.
// uri names where it was (a path, a URL, a topic), for the record.
func Deletion(source, docID, uri string) *schemas.DocumentVersion {
	now := time.Now().UTC()
	d := &schemas.DocumentVersion{
		DocID:       docID,
		Version:     1, // sources.Versioned assigns the real one
		Source:      source,
		URI:         uri,
		FetchedAt:   now,
		ContentHash: emptyHash,
		Metadata:    map[string]string{MetaDeleted: "true"},
	}
	schemas.Stamp(d, schemas.ID(docID, "deleted"))
	return d
}

// IsDeletion reports whether d is a document's deletion (Deletion).
func IsDeletion(d *schemas.DocumentVersion) bool {
	return d.Metadata[MetaDeleted] == "true" && d.Text == ""
}
