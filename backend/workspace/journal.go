package workspace

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
)

// The saved index's journal: a save after a command writes the paths that
// changed, not the whole index (issue 27). Index/ID.index holds the whole
// index of one generation (saved.Gen); index/ID.journal holds records
// appended after it, each the entries put and the paths dropped since the
// save before. Load reads the whole index and applies the journal's
// records of its generation, in order, up to the first record that is
// torn (a crash while appending: the saved index then lags behind the
// records, which recovery allows, and never runs ahead of them). A save
// writes the whole index again, with a new generation, and removes the
// journal, when this Manager has not written it yet (after a start), when
// another writer replaced it (another kernel sharing the data folder), or
// when the journal has grown past the whole index.
//
// A record is framed as its length and CRC-32C (little-endian uint32
// each) before its gob encoding.

const journalSuffix = ".journal"

// minJournal is how long a journal may grow before a save writes the
// whole index again, when the whole index is smaller.
const minJournal = 256 << 10

// maxRecord bounds a record's length as read back: a longer one is taken
// for a torn frame.
const maxRecord = 1 << 30

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// journalRecord is one save's changes.
type journalRecord struct {
	Gen  int64
	Put  map[string]Entry
	Drop []string
}

func (m *Manager) journalPath(sessionID string) string {
	return filepath.Join(m.opts.Dir, "index", sessionID+journalSuffix)
}

// newGen returns a generation for a whole index: random, never 0.
func newGen() int64 {
	n, err := rand.Int(rand.Reader, big.NewInt(math.MaxInt64-1))
	if err != nil {
		return 1
	}
	return n.Int64() + 1
}

// baseIs reports whether the session's whole saved index is still the
// file fi: another kernel sharing the data folder may have written it
// since, and a journal record of ours would not apply to its generation.
func (m *Manager) baseIs(sessionID string, fi os.FileInfo) bool {
	if fi == nil {
		return false
	}
	now, err := os.Stat(m.savedPath(sessionID))
	return err == nil && os.SameFile(fi, now) && now.Size() == fi.Size() && now.ModTime().Equal(fi.ModTime())
}

// appendJournal appends the dirty paths' state in files (an entry, or a
// drop where files holds none) to the session's journal as a record of
// generation gen, and returns the bytes appended.
func (m *Manager) appendJournal(sessionID string, gen int64, files map[string]Entry, dirty map[string]bool) (int64, error) {
	if !validID(sessionID) {
		return 0, fmt.Errorf("save the workspace index: session ID %q", sessionID)
	}
	rec := journalRecord{Gen: gen, Put: make(map[string]Entry, len(dirty))}
	for rel := range dirty {
		if e, ok := files[rel]; ok {
			rec.Put[rel] = e
		} else {
			rec.Drop = append(rec.Drop, rel)
		}
	}
	var body bytes.Buffer
	body.Write(make([]byte, 8)) // the frame, filled in below
	if err := gob.NewEncoder(&body).Encode(rec); err != nil {
		return 0, fmt.Errorf("save the workspace index: %w", err)
	}
	b := body.Bytes()
	binary.LittleEndian.PutUint32(b[0:4], uint32(len(b)-8))
	binary.LittleEndian.PutUint32(b[4:8], crc32.Checksum(b[8:], castagnoli))
	f, err := os.OpenFile(m.journalPath(sessionID), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("save the workspace index: %w", err)
	}
	_, err = f.Write(b)
	if err = errors.Join(err, f.Close()); err != nil {
		return 0, fmt.Errorf("save the workspace index: %w", err)
	}
	return int64(len(b)), nil
}

// replayJournal applies the session's journal records of s's generation
// to s, in order, up to the first torn one.
func (m *Manager) replayJournal(sessionID string, s *saved) {
	if s.Gen == 0 {
		return // written before journals, or by a save that wrote no generation
	}
	f, err := os.Open(m.journalPath(sessionID))
	if err != nil {
		return
	}
	defer f.Close()
	raw, err := io.ReadAll(f)
	if err != nil {
		return
	}
	for len(raw) >= 8 {
		n := binary.LittleEndian.Uint32(raw[0:4])
		sum := binary.LittleEndian.Uint32(raw[4:8])
		if n > maxRecord || int64(n) > int64(len(raw)-8) {
			return // torn
		}
		body := raw[8 : 8+n]
		raw = raw[8+n:]
		if crc32.Checksum(body, castagnoli) != sum {
			return // torn
		}
		var rec journalRecord
		if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&rec); err != nil {
			return
		}
		if rec.Gen != s.Gen {
			continue // of a whole index written before this one
		}
		for rel, e := range rec.Put {
			s.Files[rel] = e
		}
		for _, rel := range rec.Drop {
			delete(s.Files, rel)
		}
	}
}
