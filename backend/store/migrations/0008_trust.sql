-- What the user trusted in a workspace: a project's rules file, a
-- project's MCP server. A row holds while the fingerprint (the hex sha256
-- of what was approved) is the fingerprint of what is there now; the
-- workspace is its real path (symlinks resolved). Detail is what the
-- subject needs besides, as JSON (an MCP server's entry hash, its code's
-- digests, whether it runs outside the sandbox).
CREATE TABLE trust (
	workdir     TEXT NOT NULL,
	subject     TEXT NOT NULL, -- "rules", or "mcp:" and the server's name
	fingerprint TEXT NOT NULL,
	detail      TEXT NOT NULL DEFAULT '',
	approved_at TEXT NOT NULL, -- RFC 3339, as the settings rows before it held it
	PRIMARY KEY (workdir, subject)
);

-- Approvals were settings rows before: "rules.approved:" and the real path,
-- and "mcp.approved:", the real path, a NUL and the server's name, each
-- holding {"sha256", "approvedAt", ...}. They move here unchanged, so that
-- nothing approved before is unapproved by the upgrade; a row that approved
-- nothing (revoked, empty or unreadable) is dropped, as it counted for
-- nothing. The MCP key is split as bytes: SQLite's text functions may stop
-- at the NUL.
INSERT INTO trust (workdir, subject, fingerprint, detail, approved_at)
SELECT substr(key, 16), 'rules', json_extract(value, '$.sha256'), '',
	coalesce(json_extract(value, '$.approvedAt'), '')
FROM settings
WHERE substr(key, 1, 15) = 'rules.approved:' AND length(key) > 15
	AND json_valid(value) AND json_type(value, '$.sha256') = 'text' AND json_extract(value, '$.sha256') <> '';

INSERT INTO trust (workdir, subject, fingerprint, detail, approved_at)
SELECT CAST(substr(k, 14, nul - 14) AS TEXT), 'mcp:' || CAST(substr(k, nul + 1) AS TEXT),
	json_extract(value, '$.sha256'), json_remove(value, '$.sha256', '$.approvedAt'),
	coalesce(json_extract(value, '$.approvedAt'), '')
FROM (SELECT CAST(key AS BLOB) AS k, instr(CAST(key AS BLOB), X'00') AS nul, value FROM settings
	WHERE substr(CAST(key AS BLOB), 1, 13) = CAST('mcp.approved:' AS BLOB))
WHERE nul > 14 AND nul < length(k)
	AND json_valid(value) AND json_type(value, '$.sha256') = 'text' AND json_extract(value, '$.sha256') <> '';

DELETE FROM settings WHERE substr(key, 1, 15) = 'rules.approved:'
	OR substr(CAST(key AS BLOB), 1, 13) = CAST('mcp.approved:' AS BLOB);
