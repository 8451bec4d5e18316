package provider

import "time"

// SetBackoff shortens the retry backoff of c for tests.
func SetBackoff(c *Client, d time.Duration) { c.backoff = d }
