package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"foya/backend/llm"
)

// storeLargeCall stores, as the engine does, a run with one write call whose
// arguments are large: the call's row, the assistant message and the
// file change's "after" blob.
func storeLargeCall(t *testing.T, s *Store, sess, run, content string) string {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"path": "big.txt", "content": content})
	args := string(raw)
	ref, blobs := llm.SplitArgs(args)
	if ref == nil {
		t.Fatalf("SplitArgs(%d bytes) = nil", len(args))
	}
	rec := llm.CallRecord{SessionID: sess, RunID: run, Step: 1, ID: "c-" + run, Name: "write", Arguments: args, ArgsRef: ref, State: llm.CallDone}
	msg := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: rec.ID, Name: "write", Arguments: args, ArgsRef: ref}}}
	fc := llm.FileChange{ID: "chg-" + run, SessionID: sess, RunID: run, CallID: rec.ID, Path: "/w/big.txt", Op: "create",
		ExistsAfter: true, SHAAfter: ref.Pieces[0].SHA256}
	_, err := s.Apply(context.Background(), llm.Commit{
		Run:         &llm.Run{ID: run, SessionID: sess, Status: llm.RunCompleted, Prompt: "p"},
		Calls:       []llm.CallRecord{rec},
		Blobs:       append(blobs, []byte(content)), // the file change's "after": the same bytes
		FileChanges: []llm.FileChange{fc},
		Messages:    []llm.StoredMessage{{SessionID: sess, RunID: run, Message: msg}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return args
}

// Large arguments are stored once: one blob shared by the
// call's row, the message and the file change, kept in chunks, and read
// back byte for byte.
func TestLargeArgumentsAreStoredOnce(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	content := strings.Repeat("a line of the file\n", 200_000) // 3.8 MB
	args := storeLargeCall(t, s, "s1", "r1", content)

	var blobs, chunks, bytes, argsCol, bodyLen int64
	s.r.QueryRow(`SELECT count(*), coalesce(sum(chunks), 0) FROM blobs`).Scan(&blobs, &chunks)
	s.r.QueryRow(`SELECT coalesce(sum(length(data)), 0) FROM blob_chunks`).Scan(&bytes)
	s.r.QueryRow(`SELECT length(arguments) FROM tool_calls`).Scan(&argsCol)
	s.r.QueryRow(`SELECT length(body) FROM messages`).Scan(&bodyLen)
	if blobs != 1 || chunks != 4 || bytes != int64(len(content)) || argsCol != 0 || bodyLen > 1024 {
		t.Errorf("%d blobs in %d chunks of %d bytes, call row %d bytes, message %d bytes; want one blob of the content in 4 chunks, an empty row, a small message",
			blobs, chunks, bytes, argsCol, bodyLen)
	}
	calls, err := s.Calls(ctx, "r1")
	if err != nil || len(calls) != 1 || calls[0].Arguments != args {
		t.Fatalf("Calls: %d calls, err %v; want the exact arguments back", len(calls), err)
	}
	msgs, err := s.Messages(ctx, "s1")
	if err != nil || len(msgs) != 1 || msgs[0].Message.ToolCalls[0].Arguments != args {
		t.Fatalf("Messages: err %v; want the exact arguments back", err)
	}
	got, err := s.Blob(ctx, calls[0].ArgsRef.Pieces[0].SHA256)
	if err != nil || string(got) != content {
		t.Fatalf("Blob: %d bytes, %v; want the content", len(got), err)
	}
}

// Deleting a session keeps the blobs other sessions still refer to: blobs
// are content-addressed, so two sessions that wrote the same bytes share
// one.
func TestDeleteSessionKeepsSharedBlobs(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	session(t, s, "s2")
	content := strings.Repeat("shared\n", 20_000)
	storeLargeCall(t, s, "s1", "r1", content)
	args := storeLargeCall(t, s, "s2", "r2", content)
	other := strings.Repeat("only s1\n", 20_000)
	storeLargeCall(t, s, "s1", "r3", other)
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Messages(ctx, "s2")
	if err != nil || len(msgs) != 1 || msgs[0].Message.ToolCalls[0].Arguments != args {
		t.Fatalf("s2's history after deleting s1: %v", err)
	}
	fcs, _ := s.FileChanges(ctx, "s2")
	if _, err := s.Blob(ctx, fcs[0].SHAAfter); err != nil {
		t.Fatalf("s2's file change lost its blob: %v", err)
	}
	var n int
	s.r.QueryRow(`SELECT count(*) FROM blobs`).Scan(&n)
	if n != 1 {
		t.Errorf("%d blobs left; want 1 (s1's own blob goes)", n)
	}
}

// Deleting a session keeps another session's file-change blobs when both
// wrote the same bytes (it used to delete every blob no artifact used).
func TestDeleteSessionKeepsAnotherSessionsFileBlobs(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	session(t, s, "s1")
	session(t, s, "s2")
	data := []byte("the same content in two sessions\n")
	sha := sum(data)
	for _, id := range []string{"s1", "s2"} {
		_, err := s.Apply(ctx, llm.Commit{Blobs: [][]byte{data}, FileChanges: []llm.FileChange{{ID: "chg-" + id, SessionID: id,
			Path: "/w/a", Op: "create", ExistsAfter: true, SHAAfter: sha}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Blob(ctx, sha); err != nil {
		t.Fatalf("s2's file change lost its blob when s1 was deleted: %v", err)
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
