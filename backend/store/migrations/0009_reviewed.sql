-- Which file changes a person marked as reviewed: a row per reviewed
-- change, deleted when it is marked as not reviewed. A change made later
-- has no row (it waits for review); a change's row goes with it, and with
-- its session.
CREATE TABLE change_reviews (
	change_id   TEXT PRIMARY KEY REFERENCES file_changes(id) ON DELETE CASCADE,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	reviewed_at INTEGER NOT NULL
);
CREATE INDEX change_reviews_session ON change_reviews(session_id);
