package mcp

// RefusedHTTP reports whether a server's last start failed because it
// refused streamable HTTP's initialize POST with a 4xx other than 401
// (404, 405, 400 ...): per the specification's backwards compatibility,
// a server that speaks only the older HTTP+SSE transport. A server that
// timed out, could not be reached or asked for authorization did not
// refuse (foya mcp tools --url falls back to SSE only when it did).
func (m *Manager) RefusedHTTP(workdir, name string) bool {
	s, err := m.find(workdir, name)
	return err == nil && s.refusedHTTP.Load()
}
