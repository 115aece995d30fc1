package perturb

import "github.com/robustream/robustream/schemas"

// retrievalFamilies are the families scoring the retrieval axis: RARE's
// retrieval robustness (eq. 4) and GRADE's correctness under top-k
// retrieval.
var retrievalFamilies = []string{schemas.FamilyRARE, schemas.FamilyGRADE}

// RetrievalKind is the kind of one retriever's top-k on the retrieval axis
// (RARE §3.3.4; docs/methods.md, Retrievers and the retrieval axis): kind
// is "<retriever>_top<k>" ("bm25_top3"), made by the producer stage that
// holds the corpus (the retrieve stage), never here. Perturb declares its
// slot in every question's manifest, so pairing waits for it.
func RetrievalKind(producer, kind string) Kind {
	return Kind{Axis: schemas.AxisRetrieval, Name: kind, Families: retrievalFamilies, Producer: producer}
}
