//go:build cgo && unix

package clickhouse

// The chDB C API, declared here rather than included: the npm package ships
// libchdb.so without chdb.h. Signatures follow chdb.h of chDB 26.x; every
// handle is opaque, so void* stands in for chdb_connection, chdb_result and
// chdb_arrow_stream. Functions are resolved with dlsym at run time so that a
// binary built here runs in server mode on machines without the library.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
	void *handle;
	void **(*connect)(int, char **);
	void (*close_conn)(void **);
	void *(*query_n)(void *, const char *, size_t, const char *, size_t);
	char *(*result_buffer)(void *);
	size_t (*result_length)(void *);
	const char *(*result_error)(void *);
	void (*destroy_result)(void *);
	int (*arrow_scan)(void *, const char *, void *);
	int (*arrow_unregister)(void *, const char *);
	void (*set_signal_handlers_enabled)(int);
} rs_chdb_api;

static rs_chdb_api rs_chdb;

// rs_chdb_load opens the library and resolves every symbol we use. It
// returns NULL on success, else a message owned by libdl or a literal.
static void rs_save_signals(struct sigaction *saved, char *valid);
static void rs_restore_signals(const struct sigaction *saved, const char *valid, int keep);

static const char *rs_chdb_load(const char *path) {
	// Static initializers run inside dlopen; none of 26.5's touch signal
	// dispositions, but a later library might, and Go must keep its own.
	static struct sigaction saved[NSIG];
	static char valid[NSIG];
	rs_save_signals(saved, valid);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	rs_restore_signals(saved, valid, 0);
	if (h == NULL) {
		return dlerror();
	}
#define RS_SYM(field, name)                         \
	*(void **)(&rs_chdb.field) = dlsym(h, name);    \
	if (rs_chdb.field == NULL) {                    \
		dlclose(h);                                 \
		return "symbol " name " missing from libchdb"; \
	}
	RS_SYM(connect, "chdb_connect")
	RS_SYM(close_conn, "chdb_close_conn")
	RS_SYM(query_n, "chdb_query_n")
	RS_SYM(result_buffer, "chdb_result_buffer")
	RS_SYM(result_length, "chdb_result_length")
	RS_SYM(result_error, "chdb_result_error")
	RS_SYM(destroy_result, "chdb_destroy_query_result")
	RS_SYM(arrow_scan, "chdb_arrow_scan")
	RS_SYM(arrow_unregister, "chdb_arrow_unregister_table")
	RS_SYM(set_signal_handlers_enabled, "chdb_set_signal_handlers_enabled")
#undef RS_SYM
	rs_chdb.handle = h;
	return NULL;
}

// rs_save_signals records the disposition of every signal; valid[s] says
// whether signal s could be queried.
static void rs_save_signals(struct sigaction *saved, char *valid) {
	for (int s = 1; s < NSIG; s++) {
		valid[s] = sigaction(s, NULL, &saved[s]) == 0;
	}
}

// rs_restore_signals puts back every disposition that changed since
// rs_save_signals, except signal keep (0: none) when chDB installed a
// handler where there was none: that one stays, made to run on the
// thread's signal stack.
static void rs_restore_signals(const struct sigaction *saved, const char *valid, int keep) {
	struct sigaction cur;
	for (int s = 1; s < NSIG; s++) {
		if (!valid[s] || sigaction(s, NULL, &cur) != 0) {
			continue;
		}
		if (s == keep && saved[s].sa_handler == SIG_DFL && (cur.sa_flags & SA_SIGINFO) != 0) {
			cur.sa_flags |= SA_ONSTACK;
			sigaction(s, &cur, NULL);
			continue;
		}
		if (cur.sa_sigaction != saved[s].sa_sigaction || cur.sa_flags != saved[s].sa_flags) {
			sigaction(s, &saved[s], NULL);
		}
	}
}

static void **rs_chdb_connect(int argc, char **argv) {
	// chDB installs process-wide handlers for SIGSEGV, SIGINT and friends on
	// first connect; the Go runtime must keep its own (preemption, panics,
	// graceful shutdown), so switch them off first (the flag is sticky).
	// In 26.5 switching them off also resets SIGSEGV, SIGBUS, SIGFPE, SIGILL
	// and SIGABRT to SIG_DFL although chDB never installed them, which would
	// turn every Go nil dereference into a process kill: so we save the
	// dispositions first and restore whatever changed.
	static struct sigaction saved[NSIG];
	static char valid[NSIG];
	rs_save_signals(saved, valid);
	rs_chdb.set_signal_handlers_enabled(0);
	void **conn = rs_chdb.connect(argc, argv);
	// SIGRTMIN is ClickHouse's own: system.stack_trace sends it to every
	// thread of the process, Go's included, and installs its handler when
	// the table is attached (during connect). Go leaves SIGRTMIN at
	// SIG_DFL, so putting that back made the first read of the table kill
	// the process ("Real-time signal 0"). chDB's handler stays, with
	// SA_ONSTACK, which Go requires of foreign handlers that may run on its
	// threads (they have a signal stack; the handler only records a stack
	// and writes to a pipe).
	rs_restore_signals(saved, valid, SIGRTMIN);
	return conn;
}

static void rs_chdb_close(void **conn) { rs_chdb.close_conn(conn); }

static void *rs_chdb_query(void **conn, const char *q, size_t qlen, const char *f, size_t flen) {
	return rs_chdb.query_n(*conn, q, qlen, f, flen);
}

static char *rs_chdb_buffer(void *r) { return rs_chdb.result_buffer(r); }
static size_t rs_chdb_length(void *r) { return rs_chdb.result_length(r); }
static const char *rs_chdb_error(void *r) { return rs_chdb.result_error(r); }
static void rs_chdb_destroy(void *r) { rs_chdb.destroy_result(r); }

static int rs_chdb_arrow_scan(void **conn, const char *name, void *stream) {
	return rs_chdb.arrow_scan(*conn, name, stream);
}

static int rs_chdb_arrow_unregister(void **conn, const char *name) {
	return rs_chdb.arrow_unregister(*conn, name);
}

// The Arrow C data and stream ABI (arrow/c/abi.h), under names of our own.
struct rs_schema {
	const char *format;
	const char *name;
	const char *metadata;
	int64_t flags;
	int64_t n_children;
	struct rs_schema **children;
	struct rs_schema *dictionary;
	void (*release)(struct rs_schema *);
	void *private_data;
};

struct rs_array {
	int64_t length;
	int64_t null_count;
	int64_t offset;
	int64_t n_buffers;
	int64_t n_children;
	const void **buffers;
	struct rs_array **children;
	struct rs_array *dictionary;
	void (*release)(struct rs_array *);
	void *private_data;
};

struct rs_arrow_stream {
	int (*get_schema)(struct rs_arrow_stream *, struct rs_schema *);
	int (*get_next)(struct rs_arrow_stream *, struct rs_array *);
	const char *(*get_last_error)(struct rs_arrow_stream *);
	void (*release)(struct rs_arrow_stream *);
	void *private_data;
};

// rs_batch is a stream of one record, answered in C: chDB reads it from
// its own threads while the insert runs, and a stream exported by Go would
// call back into Go for every get_schema, get_next and release, each call
// waiting for a free Go processor (with the sink preparing the next batch
// on every core, a wait of up to a scheduler slice per call). The record,
// exported once from Go into array, is handed out as a view: a copy of the
// top-level struct sharing the children and buffers, whose release drops a
// reference; the last reference (the caller's, the stream's, the view's)
// releases the record. The schema is one exported for good per distinct
// schema (chdbSchema), and its views release nothing: chDB keeps the one
// it takes when the stream is registered and never releases it.
struct rs_batch {
	struct rs_arrow_stream stream;
	struct rs_array array;
	const struct rs_schema *schema;
	int refs;
	int served;
};

static void rs_batch_unref(struct rs_batch *b) {
	if (__atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) != 0) {
		return;
	}
	if (b->array.release != NULL) {
		b->array.release(&b->array);
	}
	free(b);
}

static void rs_schema_view_release(struct rs_schema *v) { v->release = NULL; }

static void rs_array_view_release(struct rs_array *v) {
	struct rs_batch *b = v->private_data;
	v->release = NULL;
	rs_batch_unref(b);
}

static int rs_batch_get_schema(struct rs_arrow_stream *s, struct rs_schema *out) {
	struct rs_batch *b = s->private_data;
	*out = *b->schema;
	out->release = rs_schema_view_release;
	out->private_data = NULL;
	return 0;
}

static int rs_batch_get_next(struct rs_arrow_stream *s, struct rs_array *out) {
	struct rs_batch *b = s->private_data;
	if (__atomic_exchange_n(&b->served, 1, __ATOMIC_ACQ_REL)) {
		out->release = NULL; // the end of the stream
		return 0;
	}
	*out = b->array;
	out->release = rs_array_view_release;
	out->private_data = b;
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
	return 0;
}

static const char *rs_batch_last_error(struct rs_arrow_stream *s) { return NULL; }

static void rs_batch_stream_release(struct rs_arrow_stream *s) {
	struct rs_batch *b = s->private_data;
	s->release = NULL;
	rs_batch_unref(b);
}

// rs_batch_new returns a batch of schema for Go to export the record into
// (array zeroed), holding one reference for its caller and one for its
// stream.
static struct rs_batch *rs_batch_new(const struct rs_schema *schema) {
	struct rs_batch *b = calloc(1, sizeof(struct rs_batch));
	if (b == NULL) {
		return NULL;
	}
	b->schema = schema;
	b->refs = 2;
	b->stream.get_schema = rs_batch_get_schema;
	b->stream.get_next = rs_batch_get_next;
	b->stream.get_last_error = rs_batch_last_error;
	b->stream.release = rs_batch_stream_release;
	b->stream.private_data = b;
	return b;
}

// rs_batch_done drops the caller's reference, and the stream's if chDB
// did not take the stream over (release it).
static void rs_batch_done(struct rs_batch *b) {
	if (b->stream.release != NULL) {
		b->stream.release(&b->stream);
	}
	rs_batch_unref(b);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/cdata"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/arrow/memory/mallocator"
)

// cAllocator allocates Arrow buffers with C malloc. The C data interface
// hands buffer addresses to chDB, which keeps them in C memory while it
// reads; buffers in C memory keep that within cgo's pointer rules (Go
// memory works with the default checks, since Go's heap does not move, but
// fails GOEXPERIMENT=cgocheck2).
var cAllocator = mallocator.NewMallocator()

// Allocator returns the allocator to build records for InsertArrow with:
// C memory in builds with chDB, Go memory otherwise. Records built with it
// must be released, since C memory is not garbage collected.
func Allocator() memory.Allocator { return cAllocator }

var (
	loadMu sync.Mutex
	loaded string // the library in use, once one loaded
)

// loadChDB opens libchdb.so, once per process: a later call with another
// path keeps the library already loaded (two chDB copies could not share a
// process anyway). A failed load is not remembered, so a corrected path
// can be tried next.
func loadChDB(path string) error {
	loadMu.Lock()
	defer loadMu.Unlock()
	if loaded != "" {
		return nil
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if msg := C.rs_chdb_load(cpath); msg != nil {
		return fmt.Errorf("%w: cannot load %s: %s", ErrNoChDB, path, C.GoString(msg))
	}
	loaded = path
	return nil
}

// chdbConn is one chDB connection. Its methods are not safe for concurrent
// use; the engine serializes them.
type chdbConn struct {
	c *unsafe.Pointer // chdb_connection *
}

// connectChDB opens a connection with ClickHouse command-line style args.
// chDB reports a failed boot only as a NULL connection (the reason goes to
// stderr), so the caller diagnoses the likely causes itself.
func connectChDB(args []string) (*chdbConn, error) {
	argv := make([]*C.char, len(args))
	for i, a := range args {
		argv[i] = C.CString(a)
	}
	defer func() {
		for _, p := range argv {
			C.free(unsafe.Pointer(p))
		}
	}()
	// argv must live in C memory: cgo forbids passing a Go pointer to Go
	// pointers.
	carr := (**C.char)(C.malloc(C.size_t(len(argv)) * C.size_t(unsafe.Sizeof(argv[0]))))
	defer C.free(unsafe.Pointer(carr))
	copy(unsafe.Slice(carr, len(argv)), argv)
	c := C.rs_chdb_connect(C.int(len(args)), carr)
	if c == nil {
		return nil, errors.New("chdb_connect returned no connection")
	}
	return &chdbConn{c: c}, nil
}

func (c *chdbConn) close() {
	if c.c != nil {
		C.rs_chdb_close(c.c)
		c.c = nil
	}
}

// query runs one statement and returns its output in the given format.
func (c *chdbConn) query(q, format string) ([]byte, error) {
	cq := C.CString(q)
	defer C.free(unsafe.Pointer(cq))
	cf := C.CString(format)
	defer C.free(unsafe.Pointer(cf))
	r := C.rs_chdb_query(c.c, cq, C.size_t(len(q)), cf, C.size_t(len(format)))
	if r == nil {
		return nil, errors.New("chdb_query_n returned no result")
	}
	defer C.rs_chdb_destroy(r)
	if msg := C.rs_chdb_error(r); msg != nil {
		return nil, &queryError{msg: strings.TrimSpace(C.GoString(msg))}
	}
	n := C.rs_chdb_length(r)
	if n == 0 {
		return nil, nil
	}
	// Copy out before the result is destroyed; unsafe.Slice rather than
	// C.GoBytes, whose int32 length would cap results at 2 GiB.
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(C.rs_chdb_buffer(r))), int(n))...), nil
}

var (
	schemasMu sync.Mutex
	// exported holds the C export of every record schema inserted so far,
	// by its text (names, types, nullability, metadata); the tables are
	// few and their schemas fixed.
	exported = map[string]*C.struct_rs_schema{}
)

// maxExported bounds exported against a caller inventing schemas.
const maxExported = 1024

// chdbSchema returns s exported through the Arrow C data interface, once
// per distinct schema and kept for the life of the process.
func chdbSchema(s *arrow.Schema) (*C.struct_rs_schema, error) {
	key := s.String()
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if cs := exported[key]; cs != nil {
		return cs, nil
	}
	if len(exported) >= maxExported {
		return nil, fmt.Errorf("more than %d distinct record schemas inserted", maxExported)
	}
	cs := (*C.struct_rs_schema)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_rs_schema{}))))
	if cs == nil {
		return nil, errors.New("cannot allocate an Arrow schema")
	}
	cdata.ExportArrowSchema(s, (*cdata.CArrowSchema)(unsafe.Pointer(cs)))
	exported[key] = cs
	return cs, nil
}

// withArrow registers rec as the table function arrowstream(name) for the
// duration of fn. The stream lives in C memory because chDB keeps it past
// the registering call and reads it from its own threads while fn's query
// runs; it is answered in C (rs_batch), and the record stays exported until
// chDB has released every part of it that it took (normally before fn
// returns, else when it does).
func (c *chdbConn) withArrow(name string, rec arrow.Record, fn func() error) error {
	schema, err := chdbSchema(rec.Schema())
	if err != nil {
		return err
	}
	b := C.rs_batch_new(schema)
	if b == nil {
		return errors.New("cannot allocate an Arrow stream")
	}
	defer C.rs_batch_done(b)
	cdata.ExportArrowRecordBatch(rec, (*cdata.CArrowArray)(unsafe.Pointer(&b.array)), nil)

	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	conn := c.c
	if C.rs_chdb_arrow_scan(conn, cname, unsafe.Pointer(&b.stream)) != 0 {
		return fmt.Errorf("chdb_arrow_scan(%q) failed", name)
	}
	defer C.rs_chdb_arrow_unregister(conn, cname)
	return fn()
}
