package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// accessToken is POST /accesstoken: no token needed, the app's credentials instead.
var accessToken = operation{
	op:      sandbox.OpAccessToken,
	handler: handle(issueToken),
}

// accessTokenRequest is a /accesstoken body. The limits of seconds_to_expire are
// sandbox.MinTokenSeconds and MaxTokenSeconds, its intervals sandbox.TokenIntervals.
type accessTokenRequest struct {
	AppID            string   `json:"app_id" gp:"required,max=50"`
	Nonce            string   `json:"nonce" gp:"required,max=255"`
	Secret           string   `json:"secret" gp:"required,max=255"`
	GrantType        string   `json:"grant_type" gp:"required,enum=client_credentials"`
	SecondsToExpire  int      `json:"seconds_to_expire" gp:"min=60,max=604800"`
	IntervalToExpire string   `json:"interval_to_expire" gp:"enum=WEEK|DAY|12_HOURS|6_HOURS|3_HOURS|1_HOUR|30_MINUTES|10_MINUTES|5_MINUTES"`
	Permissions      []string `json:"permissions" gp:"max=100"` // nil when absent: every permission of the app
	RestrictedToken  string   `json:"restricted_token" gp:"enum=YES|NO"`
}

func issueToken(s *Server, c *call, req accessTokenRequest) (any, error) {
	t, err := s.svc.IssueToken(sandbox.TokenRequest{
		AppID: req.AppID, Nonce: req.Nonce, Secret: req.Secret,
		SecondsToExpire: req.SecondsToExpire, IntervalToExpire: req.IntervalToExpire,
		Permissions: req.Permissions, RestrictedToken: req.RestrictedToken,
		Rehearsal: c.caller.Rehearsal,
	})
	if err != nil {
		return nil, err
	}
	return newTokenView(t), nil
}
