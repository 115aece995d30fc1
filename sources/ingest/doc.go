// Package ingest is the source behind the engine's POST /v1/documents and
// DELETE /v1/documents/{id}: handlers Submit documents, and Run emits them
// to rs.documents as they arrive. Submit returns once the documents are
// written (or the write failed), so a 202 means durable in Kafka.
//
// It also reads request bodies into document records (Decode): one JSON
// record, a JSON array of them, JSON Lines, or a multipart upload of files
// (Markdown, text, HTML, PDF), each file one document. An upload's files
// may hold at most MaxUploadText of converted text (ErrTooMuchText), and
// their conversion stops with the request's context.
//
// It must not import processors or sinks.
package ingest
