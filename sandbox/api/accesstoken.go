package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// accessToken is POST /accesstoken: no token needed, the app's credentials instead.
var accessToken = operation{
	op: sandbox.OpAccessToken,
	body: []Field{
		{name: "app_id", kind: kString, required: true, min: 1, max: 50},
		{name: "nonce", kind: kString, required: true, min: 1, max: 255},
		{name: "secret", kind: kString, required: true, min: 1, max: 255},
		{name: "grant_type", kind: kEnum, required: true, enum: []string{"client_credentials"}},
		{name: "seconds_to_expire", kind: kInt, min: sandbox.MinTokenSeconds, max: sandbox.MaxTokenSeconds},
		{name: "interval_to_expire", kind: kEnum, enum: sandbox.TokenIntervals()},
		{name: "permissions", kind: kArray, elem: kString, max: 100},
		{name: "restricted_token", kind: kEnum, enum: []string{"YES", "NO"}},
	},
	handler: handle(issueToken),
}

// accessTokenRequest is a checked /accesstoken body.
type accessTokenRequest struct {
	AppID            string   `json:"app_id"`
	Nonce            string   `json:"nonce"`
	Secret           string   `json:"secret"`
	GrantType        string   `json:"grant_type"`
	SecondsToExpire  int      `json:"seconds_to_expire"`
	IntervalToExpire string   `json:"interval_to_expire"`
	Permissions      []string `json:"permissions"` // nil when absent: every permission of the app
	RestrictedToken  string   `json:"restricted_token"`
}

func issueToken(s *Server, _ *call, req accessTokenRequest) (any, error) {
	t, err := s.svc.IssueToken(sandbox.TokenRequest{
		AppID: req.AppID, Nonce: req.Nonce, Secret: req.Secret,
		SecondsToExpire: req.SecondsToExpire, IntervalToExpire: req.IntervalToExpire,
		Permissions: req.Permissions, RestrictedToken: req.RestrictedToken,
	})
	if err != nil {
		return nil, err
	}
	return newTokenView(t), nil
}
