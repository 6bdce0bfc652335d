package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

var intervals = []string{"WEEK", "DAY", "12_HOURS", "6_HOURS", "3_HOURS", "1_HOUR", "30_MINUTES", "10_MINUTES", "5_MINUTES"}

// accessToken is POST /accesstoken (the wire contract, sandbox/api/README.md §2).
var accessToken = operation{
	op: sandbox.OpAccessToken,
	body: []field{
		{name: "app_id", kind: kString, required: true, min: 1, max: 50},
		{name: "nonce", kind: kString, required: true, min: 1, max: 255},
		{name: "secret", kind: kString, required: true, min: 1, max: 255},
		{name: "grant_type", kind: kEnum, required: true, enum: []string{"client_credentials"}},
		{name: "seconds_to_expire", kind: kInt, min: sandbox.MinTokenSeconds, max: sandbox.MaxTokenSeconds},
		{name: "interval_to_expire", kind: kEnum, enum: intervals},
		{name: "permissions", kind: kArray, elem: kString, max: 100},
		{name: "restricted_token", kind: kEnum, enum: []string{"YES", "NO"}},
	},
	execute: func(s *Server, c *call) (sandbox.Result, error) {
		req := sandbox.TokenRequest{
			AppID: str(c.body, "app_id"), Nonce: str(c.body, "nonce"), Secret: str(c.body, "secret"),
			SecondsToExpire: num(c.body, "seconds_to_expire"), IntervalToExpire: str(c.body, "interval_to_expire"),
			RestrictedToken: str(c.body, "restricted_token"),
		}
		if perms, ok := c.body["permissions"].([]any); ok {
			req.Permissions = make([]string, 0, len(perms))
			for _, p := range perms {
				req.Permissions = append(req.Permissions, p.(string))
			}
		}
		return s.svc.IssueToken(req)
	},
}
