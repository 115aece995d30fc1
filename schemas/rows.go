package schemas

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/segmentio/encoding/json"
)

// Rows decoded straight from JSON. A sink's cost is mostly decoding: an
// event struct per message, a string per field, then a copy of each value
// into the Arrow builders. For a table whose every column is a field of
// the event under the same JSON key (eval results, outcomes, chunks,
// documents, alerts), scalars or arrays of strings or floats, DecodeRow
// reads the columns' values from the message bytes instead, skipping the
// fields no column stores, and RecordOfRows copies them into the record's
// buffers, each allocated once at its final size since every value's
// length is known by then.
//
// The direct path only ever accepts. Whatever it does not recognise as
// plainly valid (a null, an escaped key, a key differing only in case, a
// number out of range, a value of the wrong kind, an unknown Enum8 name, an
// empty id, another schema version, any syntax it does not expect) sends
// the message down the struct path (DecodeBorrowed, Stores, Validate), so
// that what is refused, and the error saying why, are exactly those of the
// struct path. rows_test.go holds the two paths to the same records.

// Row is one message decoded for a table by DecodeRow.
type Row struct {
	ev Event     // the struct path's event, or nil
	st *colStore // the direct path's values: row i of st
	i  int
}

// colStore holds the direct path's values of a batch column by column
// (column c of row i at c*n+i), so that building a column reads its
// cells in sequence rather than one per row's stride.
type colStore struct {
	n      int
	cells  []cell
	srcs   [][]byte // the messages the cells' strings are in
	extras [][]byte // per row, strings that had escapes, decoded
}

// cellRef addresses the cells of one row of a colStore while decoding.
type cellRef struct {
	cells        []cell
	base, stride int
}

func (r cellRef) at(c int) *cell { return &r.cells[r.base+c*r.stride] }

// cell holds one column's value without a pointer, so that a batch's
// cells are one allocation the garbage collector does not scan: a string
// is at off, ln bytes long, in the message (or in extra when ln has
// inExtra set); an array is always in extra (see list), with its length
// in n; the rest is in n (a float's bits, an unsigned integer, 0/1, Unix
// seconds).
type cell struct {
	off, ln uint32
	n       uint64
}

const inExtra = 1 << 31

// str is the string value of column c of a direct row.
func (r *Row) str(c int) string {
	return r.st.str(c*r.st.n+r.i, r.i)
}

// str is the string of cell k, of row i.
func (st *colStore) str(k, i int) string {
	v := st.cells[k]
	buf := st.srcs[i]
	if v.ln&inExtra != 0 {
		buf, v.ln = st.extras[i], v.ln&^inExtra
	}
	if v.ln == 0 {
		return ""
	}
	return unsafe.String(&buf[v.off], int(v.ln))
}

// list is the encoded array of cell k (see directPlan.list), of row i.
func (st *colStore) list(k, i int) []byte {
	v := st.cells[k]
	ln := v.ln &^ inExtra
	return st.extras[i][v.off : v.off+ln : v.off+ln]
}

// eachString calls fn with every string of an encoded array of strings.
func eachString(enc []byte, fn func(s []byte)) {
	for len(enc) >= 4 {
		n := int(binary.LittleEndian.Uint32(enc))
		fn(enc[4 : 4+n])
		enc = enc[4+n:]
	}
}

// jsonShape is what a JSON value must look like for a field the direct
// path skips, so that skipping it accepts only what decoding would.
type jsonShape int

const (
	shapeUnknown jsonShape = iota // any other type: take the struct path
	shapeString
	shapeInt
	shapeUint
	shapeFloat
	shapeBool
	shapeStrings   // []string
	shapeStringMap // map[string]string
	shapeTime
)

// directPlan says how to read a table's rows from JSON; nil when the table
// cannot be read directly.
type directPlan struct {
	cols  map[string]int      // JSON key → column
	kinds []colKind           // by column
	skip  map[string]skipSpec // fields no column stores
	fold  map[string]bool     // lower-cased keys of every field
	enums map[int]map[string]bool
	id    int // the column RowID returns
	// keys says what to do with each key; order lists them as the
	// encoder writes them (struct order), so that a message of ours is
	// read without hashing a key (a missing key costs one lookup).
	keys  map[string]keyAction
	order []string
	acts  []keyAction
}

// keyAction is what the direct path does with one key's value.
type keyAction struct {
	what int // actColumn, actVersion or actSkip
	col  int
	skip skipSpec
	pos  int // in order
}

const (
	actColumn = iota
	actVersion
	actSkip
)

type directOnce struct {
	once sync.Once
	plan *directPlan
}

func (t *Table) plan() *directPlan {
	t.direct.once.Do(func() { t.direct.plan = newDirectPlan(t) })
	return t.direct.plan
}

// Direct reports whether DecodeRow reads t's rows straight from JSON.
func (t *Table) Direct() bool { return t.plan() != nil }

var enumName = regexp.MustCompile(`'((?:[^'\\]|\\.)*)'\s*=`)

func newDirectPlan(t *Table) *directPlan {
	if t.leaveOut != nil || (t.check != nil && !t.checkIsEnums) {
		return nil
	}
	fields := map[string]reflect.Type{}
	var order []string
	jsonFields(reflect.TypeOf(t.NewEvent()).Elem(), fields, &order)
	p := &directPlan{cols: map[string]int{}, skip: map[string]skipSpec{}, fold: map[string]bool{}, enums: map[int]map[string]bool{}, id: -1}
	for k := range fields {
		p.fold[strings.ToLower(k)] = true
	}
	for i, c := range t.Columns {
		ft, ok := fields[c.Name]
		if !ok || !kindFits(c.kind, ft) {
			return nil
		}
		p.cols[c.Name] = i
		p.kinds = append(p.kinds, c.kind)
		if c.kind == kindEnum8 {
			names := map[string]bool{}
			for _, m := range enumName.FindAllStringSubmatch(c.Type, -1) {
				names[m[1]] = true
			}
			p.enums[i] = names
		}
	}
	for k, ft := range fields {
		if _, ok := p.cols[k]; !ok && k != "schema_version" {
			p.skip[k] = skipSpec{shapeOf(ft), bitsOf(ft)}
		}
	}
	// The id column is the string column RowID reads: found by decoding
	// an event holding only that column.
	for i, c := range t.Columns {
		if c.kind != kindString {
			continue
		}
		ev := t.NewEvent()
		if err := json.Unmarshal([]byte(`{"`+c.Name+`":"\u0001probe"}`), ev); err == nil && t.RowID(ev) == "\x01probe" {
			p.id = i
			break
		}
	}
	if p.id < 0 {
		return nil
	}
	p.keys = map[string]keyAction{}
	for pos, k := range order {
		a := keyAction{what: actSkip, pos: pos}
		if c, ok := p.cols[k]; ok {
			a.what, a.col = actColumn, c
		} else if k == "schema_version" {
			a.what = actVersion
		} else {
			a.skip = p.skip[k]
		}
		p.keys[k] = a
		p.order = append(p.order, k)
		p.acts = append(p.acts, a)
	}
	return p
}

// jsonFields collects the JSON keys of struct type st, embedded structs
// flattened as encoding/json does.
func jsonFields(st reflect.Type, out map[string]reflect.Type, order *[]string) {
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			jsonFields(f.Type, out, order)
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
		*order = append(*order, name)
	}
}

var timeType = reflect.TypeOf(time.Time{})

func kindFits(k colKind, t reflect.Type) bool {
	switch k {
	case kindString, kindEnum8:
		return t.Kind() == reflect.String
	case kindUint8:
		return t.Kind() == reflect.Uint8
	case kindUint32:
		return t.Kind() == reflect.Uint32
	case kindFloat64:
		return t.Kind() == reflect.Float64
	case kindFlag:
		return t.Kind() == reflect.Bool
	case kindDateTime:
		return t == timeType
	case kindStrings:
		return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String
	case kindFloats:
		return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Float64
	}
	return false
}

// skipSpec is the shape of a skipped field, with its numeric size.
type skipSpec struct {
	shape jsonShape
	bits  int
}

func bitsOf(t reflect.Type) int {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return t.Bits()
	}
	return 0
}

func shapeOf(t reflect.Type) jsonShape {
	switch {
	case t == timeType:
		return shapeTime
	case t.Kind() == reflect.String:
		return shapeString
	case t.Kind() == reflect.Bool:
		return shapeBool
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return shapeInt
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return shapeUint
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32:
		return shapeFloat
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return shapeStrings
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String:
		return shapeStringMap
	}
	return shapeUnknown
}

// DecodeRow decodes one message for t. stored is false, with a nil error,
// for an event of the table's type that is not a row (Stores). The row may
// share b's bytes: b must not change until the row is in a record.
func (t *Table) DecodeRow(b []byte) (r Row, stored bool, err error) {
	return t.decodeRow(b, nil, 0)
}

// RowResult is DecodeRow's answer for one message of DecodeRows.
type RowResult struct {
	Row    Row
	Stored bool
	Err    error
}

// RowBatch is DecodeRows' answer: a result per message, in order.
type RowBatch struct {
	Results []RowResult
	mem     *batchMem
}

// batchMem is the memory of a decoded batch that DecodeRows recycles: a
// sink decodes one batch after another of about the same size, and fresh
// results, cells and escape buffers each time would be a megabyte or more
// per batch for the allocator to clear and the collector to scan.
type batchMem struct {
	results []RowResult
	cells   []cell
	extras  [][]byte
}

var batchMems sync.Pool

// Release hands the batch's memory back for the next batch; its rows must
// not be used afterwards (build the record first).
func (rb *RowBatch) Release() {
	if m := rb.mem; m != nil {
		clear(m.results) // drop the events and errors they hold
		batchMems.Put(m)
		rb.mem = nil
	}
	rb.Results = nil
}

// DecodeRows is DecodeRow for a batch, on all cores, with the direct
// path's values in one recycled allocation for the batch rather than one
// per row. Release the batch once its rows are in a record.
func (t *Table) DecodeRows(values [][]byte) *RowBatch {
	m, _ := batchMems.Get().(*batchMem)
	if m == nil {
		m = &batchMem{}
	}
	n := len(values)
	if cap(m.results) < n {
		m.results = make([]RowResult, n)
	}
	out := m.results[:n]
	rb := &RowBatch{Results: out, mem: m}
	var st *colStore
	if t.plan() != nil {
		need := n * len(t.Columns)
		if cap(m.cells) < need {
			m.cells = make([]cell, need)
		}
		cells := m.cells[:need]
		clear(cells)
		if cap(m.extras) < n {
			m.extras = make([][]byte, n)
		}
		extras := m.extras[:n]
		for i := range extras {
			extras[i] = extras[i][:0]
		}
		st = &colStore{n: n, cells: cells, srcs: values, extras: extras}
	}
	one := func(i int) {
		r, stored, err := t.decodeRow(values[i], st, i)
		out[i] = RowResult{r, stored, err}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(values) < 256 || workers < 2 {
		for i := range values {
			one(i)
		}
		return rb
	}
	// Chunks of rows, taken in turn, keep the cores busy to the end
	// whatever the rows' sizes.
	const chunk = 128
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(chunk) - chunk)
				if start >= len(values) {
					return
				}
				for i := start; i < min(start+chunk, len(values)); i++ {
					one(i)
				}
			}
		}()
	}
	wg.Wait()
	return rb
}

// decodeRow decodes b, the direct path's values into row i of st when
// given (else a store of its own).
func (t *Table) decodeRow(b []byte, st *colStore, i int) (r Row, stored bool, err error) {
	if p := t.plan(); p != nil && len(b) < inExtra {
		if st == nil {
			st = &colStore{n: 1, cells: make([]cell, len(t.Columns)), srcs: [][]byte{b}, extras: make([][]byte, 1)}
		}
		if p.decode(b, cellRef{st.cells, i, st.n}, &st.extras[i]) {
			return Row{st: st, i: i}, true, nil
		}
	}
	ev := t.NewEvent()
	if err := DecodeBorrowed(b, ev); err != nil {
		return Row{}, false, err
	}
	if !t.Stores(ev) {
		return Row{}, false, nil
	}
	if err := t.Validate(ev); err != nil {
		return Row{}, false, err
	}
	return Row{ev: ev}, true, nil
}

// RowKey is RowID for a decoded row.
func (t *Table) RowKey(r Row) string {
	if r.ev != nil {
		return t.RowID(r.ev)
	}
	return r.str(t.plan().id)
}

// RecordOfRows builds one Arrow record of rows (from DecodeRow on t) with
// buffers from mem; the caller releases it.
func (t *Table) RecordOfRows(mem memory.Allocator, rows []Row) arrow.Record {
	if rec := t.directRecord(mem, rows); rec != nil {
		return rec
	}
	b := array.NewRecordBuilder(mem, t.schema)
	defer b.Release()
	b.Reserve(len(rows))
	eachColumn(b, len(rows), func(i int, fb array.Builder) {
		c := t.Columns[i]
		if sb, ok := fb.(*array.StringBuilder); ok {
			// One allocation for the column's bytes instead of doubling.
			n := 0
			for _, r := range rows {
				if r.ev == nil {
					n += int(r.st.cells[i*r.st.n+r.i].ln &^ inExtra)
				}
			}
			sb.ReserveData(n)
		}
		for _, r := range rows {
			if r.ev != nil {
				c.fill(fb, r.ev)
				continue
			}
			v := r.st.cells[i*r.st.n+r.i]
			switch c.kind {
			case kindString, kindEnum8:
				fb.(*array.StringBuilder).Append(r.str(i))
			case kindUint8, kindFlag:
				fb.(*array.Uint8Builder).Append(uint8(v.n))
			case kindUint32:
				fb.(*array.Uint32Builder).Append(uint32(v.n))
			case kindFloat64:
				fb.(*array.Float64Builder).Append(math.Float64frombits(v.n))
			case kindDateTime:
				fb.(*array.TimestampBuilder).Append(arrow.Timestamp(int64(v.n)))
			case kindStrings:
				lb := fb.(*array.ListBuilder)
				lb.Append(true)
				vb := lb.ValueBuilder().(*array.StringBuilder)
				eachString(r.st.list(i*r.st.n+r.i, r.i), func(s []byte) { vb.BinaryBuilder.Append(s) })
			case kindFloats:
				lb := fb.(*array.ListBuilder)
				lb.Append(true)
				vb := lb.ValueBuilder().(*array.Float64Builder)
				enc := r.st.list(i*r.st.n+r.i, r.i)
				for k := 0; k+8 <= len(enc); k += 8 {
					vb.Append(math.Float64frombits(binary.LittleEndian.Uint64(enc[k:])))
				}
			}
		}
	})
	return b.NewRecord()
}

// directRecord is RecordOfRows for rows that all took the direct path,
// or nil when one did not. Their lengths are known before anything is
// copied, so each column's buffers are allocated once at their final size
// and filled in place, without a builder's checks and bookkeeping per
// value; the arrays are laid out as the builders lay them out (a validity
// bitmap with every bit set, offsets, values), so the store reads the
// same record either way.
func (t *Table) directRecord(mem memory.Allocator, rows []Row) arrow.Record {
	if len(rows) == 0 {
		return nil
	}
	for _, r := range rows {
		if r.ev != nil {
			return nil
		}
	}
	cols := make([]arrow.Array, len(t.Columns))
	eachIndex(len(cols), len(rows), func(c int) { cols[c] = t.directColumn(mem, c, rows) })
	for _, a := range cols {
		if a == nil { // a column past the 2 GiB of 32-bit offsets
			for _, a := range cols {
				if a != nil {
					a.Release()
				}
			}
			return nil
		}
	}
	rec := array.NewRecord(t.schema, cols, int64(len(rows)))
	for _, a := range cols {
		a.Release()
	}
	return rec
}

// directColumn builds column c of direct rows, or returns nil if its
// strings do not fit 32-bit offsets.
func (t *Table) directColumn(mem memory.Allocator, c int, rows []Row) arrow.Array {
	n := len(rows)
	col := t.Columns[c]
	buffer := func(size int) *memory.Buffer {
		buf := memory.NewResizableBuffer(mem)
		buf.ResizeNoShrink(size)
		return buf
	}
	valid := validity(mem, n)
	bufs := []*memory.Buffer{valid}
	cell := func(r Row) cell { return r.st.cells[c*r.st.n+r.i] }
	var children []arrow.ArrayData
	switch col.kind {
	case kindString, kindEnum8:
		total := 0
		for _, r := range rows {
			total += int(cell(r).ln &^ inExtra)
		}
		if total > math.MaxInt32 {
			valid.Release()
			return nil
		}
		offs, data := buffer(4*(n+1)), buffer(total)
		o, d := arrow.Int32Traits.CastFromBytes(offs.Bytes()), data.Bytes()
		pos := 0
		for k, r := range rows {
			o[k] = int32(pos)
			pos += copy(d[pos:], r.str(c))
		}
		o[n] = int32(pos)
		bufs = append(bufs, offs, data)
	case kindUint8, kindFlag:
		vals := buffer(n)
		v := vals.Bytes()
		for k, r := range rows {
			v[k] = uint8(cell(r).n)
		}
		bufs = append(bufs, vals)
	case kindUint32:
		vals := buffer(4 * n)
		v := arrow.Uint32Traits.CastFromBytes(vals.Bytes())
		for k, r := range rows {
			v[k] = uint32(cell(r).n)
		}
		bufs = append(bufs, vals)
	case kindFloat64, kindDateTime:
		// A float's bits and a time's seconds both fill 8 bytes.
		vals := buffer(8 * n)
		v := arrow.Uint64Traits.CastFromBytes(vals.Bytes())
		for k, r := range rows {
			v[k] = cell(r).n
		}
		bufs = append(bufs, vals)
	case kindStrings, kindFloats:
		// A list: offsets into one child array of every row's items.
		items, size := 0, 0
		for _, r := range rows {
			items += int(cell(r).n)
			size += int(cell(r).ln &^ inExtra)
		}
		if col.kind == kindStrings {
			size -= 4 * items // the items' length prefixes
		}
		if size > math.MaxInt32 || items > math.MaxInt32 {
			valid.Release()
			return nil
		}
		offs := buffer(4 * (n + 1))
		o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
		k := 0
		for j, r := range rows {
			o[j] = int32(k)
			k += int(cell(r).n)
		}
		o[n] = int32(k)
		bufs = append(bufs, offs)
		children = []arrow.ArrayData{listItems(mem, col, c, rows, items, size)}
	}
	data := array.NewData(col.Arrow, n, bufs, children, 0, 0)
	for _, b := range bufs {
		b.Release()
	}
	for _, ch := range children {
		ch.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// validity is a validity bitmap of n rows, every bit set.
func validity(mem memory.Allocator, n int) *memory.Buffer {
	valid := memory.NewResizableBuffer(mem)
	valid.ResizeNoShrink(int(bitutil.BytesForBits(int64(n))))
	bitutil.SetBitsTo(valid.Bytes(), 0, int64(n), true)
	return valid
}

// listItems is the child array of list column c of direct rows: their
// items, items of them, size bytes of strings or floats in all.
func listItems(mem memory.Allocator, col Column, c int, rows []Row, items, size int) arrow.ArrayData {
	buffer := func(size int) *memory.Buffer {
		buf := memory.NewResizableBuffer(mem)
		buf.ResizeNoShrink(size)
		return buf
	}
	bufs := []*memory.Buffer{validity(mem, items)}
	elem := col.Arrow.(*arrow.ListType).Elem()
	if col.kind == kindFloats {
		// The encoded floats are their 8 bytes each, in order already.
		vals := buffer(size)
		v, pos := vals.Bytes(), 0
		for _, r := range rows {
			pos += copy(v[pos:], r.st.list(c*r.st.n+r.i, r.i))
		}
		bufs = append(bufs, vals)
	} else {
		offs, data := buffer(4*(items+1)), buffer(size)
		o, d := arrow.Int32Traits.CastFromBytes(offs.Bytes()), data.Bytes()
		k, pos := 0, 0
		for _, r := range rows {
			eachString(r.st.list(c*r.st.n+r.i, r.i), func(s []byte) {
				o[k] = int32(pos)
				pos += copy(d[pos:], s)
				k++
			})
		}
		o[items] = int32(pos)
		bufs = append(bufs, offs, data)
	}
	out := array.NewData(elem, items, bufs, nil, 0, 0)
	for _, b := range bufs {
		b.Release()
	}
	return out
}

// eachIndex calls fn for 0..n-1, on all cores when a batch of rows is
// large enough to pay for it.
func eachIndex(n, rows int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if rows < 1024 || workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// decode reads one JSON object into a cell per column; ok is false when the
// message needs the struct path (see the top of the file).
func (p *directPlan) decode(b []byte, cells cellRef, extra *[]byte) (ok bool) {
	version := false
	pos := 0 // where the next key is expected in p.order
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return false // no id, no version: the struct path says so
	}
	for {
		// Key: plain ASCII only, no escapes. The key expected next, or
		// one of the few after it (the encoder leaves empty fields out),
		// is compared in place, without a scan for its end.
		if i >= len(b) || b[i] != '"' {
			return false
		}
		var a *keyAction
		var end int
		for q := pos; q < min(pos+lookahead, len(p.order)); q++ {
			k := p.order[q]
			if e := i + 1 + len(k); e < len(b) && b[e] == '"' && string(b[i+1:e]) == k {
				a, end = &p.acts[q], e
				break
			}
		}
		var key string
		if a == nil {
			e, simple := scanString(b, i)
			if e < 0 || !simple {
				return false
			}
			end = e
			key = unsafe.String(unsafe.SliceData(b[i+1:]), end-i-1)
			if ka, ok := p.keys[key]; ok {
				a = &ka
			}
		}
		i = skipWS(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return false
		}
		known := a != nil
		var next int
		switch {
		case !known && p.fold[strings.ToLower(key)]:
			return false // decoding would match it case-insensitively
		case !known:
			next = skipValue(b, i, 0)
		case a.what == actColumn:
			next = p.value(b, i, a.col, cells, extra)
		case a.what == actVersion:
			next = skipNumber(b, i)
			if next < 0 || string(b[i:next]) != versionText {
				return false
			}
			version = true
		default:
			next = skipShaped(b, i, a.skip)
		}
		if known {
			pos = a.pos + 1
		}
		if next < 0 {
			return false
		}
		i = skipWS(b, next)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return false
		}
		i = skipWS(b, i+1)
	}
	if skipWS(b, i+1) != len(b) || !version || cells.at(p.id).ln == 0 {
		return false
	}
	// An Enum8 value, present or not, must be one of its names.
	for c, names := range p.enums {
		v := *cells.at(c)
		buf := b
		if v.ln&inExtra != 0 {
			buf, v.ln = *extra, v.ln&^inExtra
		}
		if !names[string(buf[v.off:v.off+v.ln])] {
			return false
		}
	}
	return true
}

var versionText = strconv.Itoa(Version)

// lookahead is how many keys of the struct order decode tries in place
// before it looks a key up: the expected one and the next three.
const lookahead = 4

// value reads column c's value at b[i:] into its cell, returning the
// offset after it, or -1 for the struct path.
func (p *directPlan) value(b []byte, i, c int, cells cellRef, extra *[]byte) int {
	switch k := p.kinds[c]; k {
	case kindString, kindEnum8:
		end, simple := scanString(b, i)
		if end < 0 {
			return -1
		}
		if simple {
			cells.at(c).off, cells.at(c).ln = uint32(i+1), uint32(end-i-1)
			return end + 1
		}
		start := len(*extra)
		var ok bool
		if *extra, ok = appendUnquoted(*extra, b[i:end+1]); !ok || len(*extra) >= inExtra {
			return -1
		}
		cells.at(c).off, cells.at(c).ln = uint32(start), uint32(len(*extra)-start)|inExtra
		return end + 1
	case kindFlag:
		switch {
		case bytes.HasPrefix(b[i:], litTrue):
			cells.at(c).n = 1
			return i + 4
		case bytes.HasPrefix(b[i:], litFalse):
			cells.at(c).n = 0
			return i + 5
		}
		return -1
	case kindDateTime:
		end, simple := scanString(b, i)
		if end < 0 || !simple {
			return -1
		}
		if secs, ok := utcSeconds(b[i+1 : end]); ok {
			cells.at(c).n = uint64(secs)
			return end + 1
		}
		var tm time.Time
		if err := tm.UnmarshalJSON(b[i : end+1]); err != nil {
			return -1
		}
		cells.at(c).n = uint64(DateTimeSeconds(tm))
		return end + 1
	case kindStrings, kindFloats:
		return list(b, i, k, cells.at(c), extra)
	case kindFloat64, kindUint8, kindUint32:
		end := skipNumber(b, i)
		if end < 0 {
			return -1
		}
		text := unsafe.String(unsafe.SliceData(b[i:]), end-i)
		if k == kindFloat64 {
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return -1
			}
			cells.at(c).n = math.Float64bits(f)
			return end
		}
		bits := 8
		if k == kindUint32 {
			bits = 32
		}
		u, err := strconv.ParseUint(text, 10, bits)
		if err != nil {
			return -1
		}
		cells.at(c).n = u
		return end
	}
	return -1
}

// list reads the JSON array at b[i] of a kindStrings or kindFloats
// column into extra, encoded for RecordOfRows: each string as its length
// (4 bytes, little-endian) and its bytes, decoded as a string column's
// value is; each float as its 8 bytes. v says where (off, ln with
// inExtra) and n how many items. It returns the offset after the array,
// or -1 for the struct path (a null, an item of another kind, …).
func list(b []byte, i int, k colKind, v *cell, extra *[]byte) int {
	if i >= len(b) || b[i] != '[' {
		return -1
	}
	start, items := len(*extra), 0
	j := skipWS(b, i+1)
	if j < len(b) && b[j] == ']' {
		j++
	} else {
		for {
			if k == kindFloats {
				end := skipNumber(b, j)
				if end < 0 {
					return -1
				}
				f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b[j:]), end-j), 64)
				if err != nil {
					return -1
				}
				*extra = binary.LittleEndian.AppendUint64(*extra, math.Float64bits(f))
				j = end
			} else {
				end, simple := scanString(b, j)
				if end < 0 {
					return -1
				}
				if simple {
					*extra = binary.LittleEndian.AppendUint32(*extra, uint32(end-j-1))
					*extra = append(*extra, b[j+1:end]...)
				} else {
					at := len(*extra)
					var ok bool
					*extra, ok = appendUnquoted(append(*extra, 0, 0, 0, 0), b[j:end+1])
					if !ok || len(*extra) >= inExtra {
						return -1
					}
					binary.LittleEndian.PutUint32((*extra)[at:], uint32(len(*extra)-at-4))
				}
				j = end + 1
			}
			items++
			j = skipWS(b, j)
			if j >= len(b) {
				return -1
			}
			if b[j] == ']' {
				j++
				break
			}
			if b[j] != ',' {
				return -1
			}
			j = skipWS(b, j+1)
		}
	}
	if len(*extra) >= inExtra {
		return -1
	}
	v.off, v.ln, v.n = uint32(start), uint32(len(*extra)-start)|inExtra, uint64(items)
	return j
}

// utcSeconds reads the layout our encoder writes for a UTC time,
// 2006-01-02T15:04:05Z with 0 to 9 fraction digits, as DateTimeSeconds of
// it, in a tenth of the time parsing takes. Anything else, or a date or
// time that does not exist, is left to time.Time (ok false).
func utcSeconds(s []byte) (int64, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return 0, false
	}
	for _, k := range digitPlaces {
		if s[k] < '0' || s[k] > '9' {
			return 0, false
		}
	}
	d := func(k int) int { return int(s[k] - '0') }
	year, month, day := d(0)*1000+d(1)*100+d(2)*10+d(3), d(5)*10+d(6), d(8)*10+d(9)
	hour, minute, sec := d(11)*10+d(12), d(14)*10+d(15), d(17)*10+d(18)
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	if frac := s[19 : len(s)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return 0, false
		}
		for _, c := range frac[1:] {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	if day > daysIn(month, year) {
		return 0, false
	}
	// Days since 1970-01-01 of a proleptic Gregorian date (the era
	// arithmetic of H. Hinnant's days_from_civil, in our own words: years
	// start in March so the leap day comes last).
	y := year
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (month + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := int64(era)*146097 + int64(doe) - 719468
	secs := days*86400 + int64(hour*3600+minute*60+sec)
	switch {
	case secs < 0:
		return 0, true
	case secs > math.MaxUint32:
		return math.MaxUint32, true
	}
	return secs, true
}

// digitPlaces are the offsets of the digits in 2006-01-02T15:04:05.
var digitPlaces = [...]int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// appendUnquoted appends the value of q, a JSON string scanString found
// not simple, to dst, as decoding reads it. Passages of text come with
// escaped line breaks and quotes, so this is common: the escapes JSON
// defines are decoded here in one pass; what is left to unquote is the
// rare string with a byte that is not UTF-8 or a lone surrogate (each
// becomes U+FFFD, as decoding does), or an escape JSON does not define
// (refused). ok is false when the string is refused.
func appendUnquoted(dst, q []byte) (out []byte, ok bool) {
	start := len(dst)
	s := q[1 : len(q)-1]
	for len(s) > 0 {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:k]...)
		s = s[k:]
		if len(s) < 2 {
			return slowUnquoted(dst[:start], q)
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[2:])
			switch {
			case r < 0:
				return slowUnquoted(dst[:start], q)
			case utf16.IsSurrogate(rune(r)):
				// Only a high half followed by a low one is a character.
				low := -1
				if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
					low = hex4(s[8:])
				}
				rr := utf16.DecodeRune(rune(r), rune(low))
				if low < 0 || rr == utf8.RuneError {
					return slowUnquoted(dst[:start], q)
				}
				dst = utf8.AppendRune(dst, rr)
				s = s[12:]
				continue
			}
			dst = utf8.AppendRune(dst, rune(r))
			s = s[6:]
			continue
		default:
			return slowUnquoted(dst[:start], q)
		}
		s = s[2:]
	}
	if !utf8.Valid(dst[start:]) {
		return slowUnquoted(dst[:start], q)
	}
	return dst, true
}

// hex4 is the value of four hex digits at the start of b, or -1.
func hex4(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	v := 0
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		v = v<<4 | int(c)
	}
	return v
}

// slowUnquoted is appendUnquoted through decoding itself.
func slowUnquoted(dst, q []byte) ([]byte, bool) {
	s, ok := unquote(q)
	if !ok {
		return dst, false
	}
	return append(dst, s...), true
}

// unquote decodes a string with escapes or other than ASCII as decoding
// does (invalid UTF-8 becomes U+FFFD). Apart from value, so that the
// string it decodes into escapes to the heap only on this path.
func unquote(q []byte) (string, bool) {
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return "", false
	}
	return s, true
}

var litTrue, litFalse, litNull = []byte("true"), []byte("false"), []byte("null")

func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the offset of the closing quote of the string at
// b[i], or -1 if there is none or a raw control character is inside;
// simple says it has no escape and is valid UTF-8, so its bytes are its
// value. Most strings of our messages are short ASCII (ids, names), so the
// scan reads eight bytes at a time and stops at the first byte that is a
// quote, a backslash, a control character or not ASCII: one pass, with no
// call to set up; a string that is not plain ASCII goes on in scanOther.
func scanString(b []byte, i int) (end int, simple bool) {
	if i >= len(b) || b[i] != '"' {
		return -1, false
	}
	j := i + 1
	for ; j+8 <= len(b); j += 8 {
		if m := stops(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			j += bits.TrailingZeros64(m) >> 3
			if b[j] == '"' {
				return j, true
			}
			return scanOther(b, i, j)
		}
	}
	for ; j < len(b); j++ {
		if c := b[j]; c == '"' {
			return j, true
		} else if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
	}
	return scanOther(b, i, j)
}

// stops has the high bit set in each byte of w that is a quote, a
// backslash, a control character or not ASCII, and none below the first
// such byte (a borrow only carries upward from a byte that is one, so
// higher bytes may be marked falsely, never lower ones).
func stops(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ ('"' * ones)
	bs := w ^ ('\\' * ones)
	return ((q-ones)&^q | (bs-ones)&^bs | (w - 0x20*ones) | w) & highs
}

// scanOther finishes scanString from b[j], the first byte of the string at
// b[i] that is not plain ASCII: a backslash, a control character (refused)
// or a byte of a multi-byte character (the string is simple if it has no
// escape and is valid UTF-8).
func scanOther(b []byte, i, j int) (end int, simple bool) {
	if j >= len(b) || b[j] < 0x20 {
		return -1, false
	}
	if b[j] == '\\' {
		return scanEscaped(b, i)
	}
	q := bytes.IndexByte(b[j:], '"')
	if q < 0 {
		return -1, false
	}
	span := b[j : j+q]
	if bytes.IndexByte(span, '\\') >= 0 {
		return scanEscaped(b, i)
	}
	for _, c := range span {
		if c < 0x20 {
			return -1, false
		}
	}
	return j + q, utf8.Valid(span)
}

// scanEscaped is scanString for a string holding a backslash, whose
// closing quote may come after escaped ones.
func scanEscaped(b []byte, i int) (end int, simple bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j, false
		case c == '\\':
			j++
		case c < 0x20:
			return -1, false
		}
	}
	return -1, false
}

// skipNumber returns the offset after the JSON number at b[i], or -1.
func skipNumber(b []byte, i int) int {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	digits := func() bool {
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(b) && b[j] == '0' {
		j++
	} else if !digits() {
		return -1
	}
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			return -1
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if !digits() {
			return -1
		}
	}
	return j
}

// floatFits reports, for a number skipNumber accepted, that it has no
// exponent and fewer digits before the point than the largest float of
// its size (38 for float32, 308 for float64), so that parsing, which
// fails only out of range, need not be asked.
func floatFits(num []byte, bits int) bool {
	whole, point := 0, false
	for _, c := range num {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c == '.':
			point = true
		case c >= '0' && c <= '9' && !point:
			whole++
		}
	}
	return whole <= 38 || (bits == 64 && whole <= 308)
}

// skipString is scanString for a string no column stores: the offset of
// its closing quote, or -1 if decoding would refuse it (a control
// character, or an escape JSON does not define).
func skipString(b []byte, i int) int {
	end, simple := scanString(b, i)
	if end < 0 || simple {
		return end
	}
	q := b[i+1 : end+1] // the closing quote ends a \u escape cut short
	for k := bytes.IndexByte(q, '\\'); k >= 0; k = bytes.IndexByte(q, '\\') {
		switch q[k+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			q = q[k+2:]
		case 'u':
			if hex4(q[k+2:]) < 0 {
				return -1
			}
			q = q[k+6:]
		default:
			return -1
		}
	}
	return end
}

// skipShaped skips a value of a field no column stores, if it has the
// shape the field's type accepts; -1 otherwise.
func skipShaped(b []byte, i int, spec skipSpec) int {
	switch shape := spec.shape; shape {
	case shapeString:
		end := skipString(b, i)
		if end < 0 {
			return -1
		}
		return end + 1
	case shapeTime:
		end, simple := scanString(b, i)
		if end < 0 || !simple {
			return -1
		}
		var tm time.Time
		if tm.UnmarshalJSON(b[i:end+1]) != nil {
			return -1
		}
		return end + 1
	case shapeBool:
		if bytes.HasPrefix(b[i:], litTrue) {
			return i + 4
		}
		if bytes.HasPrefix(b[i:], litFalse) {
			return i + 5
		}
		return -1
	case shapeInt, shapeUint:
		end := skipNumber(b, i)
		if end < 0 {
			return -1
		}
		var err error
		if shape == shapeInt {
			_, err = strconv.ParseInt(unsafe.String(unsafe.SliceData(b[i:]), end-i), 10, spec.bits)
		} else {
			_, err = strconv.ParseUint(unsafe.String(unsafe.SliceData(b[i:]), end-i), 10, spec.bits)
		}
		if err != nil {
			return -1
		}
		return end
	case shapeFloat:
		end := skipNumber(b, i)
		if end < 0 {
			return -1
		}
		if !floatFits(b[i:end], spec.bits) {
			if _, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b[i:]), end-i), spec.bits); err != nil {
				return -1
			}
		}
		return end
	case shapeStrings, shapeStringMap:
		shape := spec.shape
		open, close := byte('['), byte(']')
		if shape == shapeStringMap {
			open, close = '{', '}'
		}
		if i >= len(b) || b[i] != open {
			return -1
		}
		j := skipWS(b, i+1)
		if j < len(b) && b[j] == close {
			return j + 1
		}
		for {
			if shape == shapeStringMap {
				end := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = skipWS(b, end+1)
				if j >= len(b) || b[j] != ':' {
					return -1
				}
				j = skipWS(b, j+1)
			}
			end := skipString(b, j)
			if end < 0 {
				return -1
			}
			j = skipWS(b, end+1)
			if j >= len(b) {
				return -1
			}
			if b[j] == close {
				return j + 1
			}
			if b[j] != ',' {
				return -1
			}
			j = skipWS(b, j+1)
		}
	}
	return -1
}

// skipValue skips any JSON value (a key no field has), or returns -1.
func skipValue(b []byte, i, depth int) int {
	if i >= len(b) || depth > 32 {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end := skipString(b, i)
		if end < 0 {
			return -1
		}
		return end + 1
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	case bytes.HasPrefix(b[i:], litTrue):
		return i + 4
	case bytes.HasPrefix(b[i:], litFalse):
		return i + 5
	case bytes.HasPrefix(b[i:], litNull):
		return i + 4
	case c == '[' || c == '{':
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		j := skipWS(b, i+1)
		if j < len(b) && b[j] == close {
			return j + 1
		}
		for {
			if c == '{' {
				end := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = skipWS(b, end+1)
				if j >= len(b) || b[j] != ':' {
					return -1
				}
				j = skipWS(b, j+1)
			}
			if j = skipValue(b, j, depth+1); j < 0 {
				return -1
			}
			j = skipWS(b, j)
			if j >= len(b) {
				return -1
			}
			if b[j] == close {
				return j + 1
			}
			if b[j] != ',' {
				return -1
			}
			j = skipWS(b, j+1)
		}
	}
	return -1
}
