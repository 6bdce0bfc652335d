package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// actionListView is the answer of GET /actions: GP's list envelope with its actions
// array, named for the app's own merchant [GP].
type actionListView struct {
	MerchantID   string `json:"merchant_id"`
	MerchantName string `json:"merchant_name"`
	pageHead
	Actions []actionRecordView `json:"actions"`
}

// actionRecordView is one recorded action as the SDKs' ActionSummary mappers read
// it [GP]. Every member is sent, "" where the action has none (a refusal names no
// resource).
type actionRecordView struct {
	ID               string `json:"id"`
	Type             string `json:"type"`
	TimeCreated      string `json:"time_created"`
	Resource         string `json:"resource"`
	ResourceID       string `json:"resource_id"`
	ResourceStatus   string `json:"resource_status"`
	Version          string `json:"version"`
	HTTPResponseCode string `json:"http_response_code"`
	ResponseCode     string `json:"response_code"`
	AppID            string `json:"app_id"`
	AppName          string `json:"app_name"`
	merchantAccountView
}

// actionDetailView is GET /actions/{id}: the action, with what its request carried
// and what its answer said, which PHP maps as rawRequest and rawResponse [GP].
type actionDetailView struct {
	actionRecordView
	MessageReceived string `json:"message_received"`
	MessageSent     string `json:"message_sent"`
}

func (v actionDetailView) resourceID() string { return v.ID }

func newActionRecordView(a sandbox.ActionRecord) actionRecordView {
	return actionRecordView{
		ID: a.ID, Type: a.Type, TimeCreated: sandbox.FormatTime(a.TimeCreated), Resource: a.Resource,
		ResourceID: a.ResourceID, ResourceStatus: a.ResourceStatus, Version: a.Version,
		HTTPResponseCode: a.HTTPResponseCode, ResponseCode: a.ResponseCode, AppID: a.AppID, AppName: a.AppName,
		merchantAccountView: merchantAccountView(a.Holder),
	}
}

func newActionDetailView(a sandbox.ActionRecord) actionDetailView {
	return actionDetailView{actionRecordView: newActionRecordView(a), MessageReceived: a.MessageReceived, MessageSent: a.MessageSent}
}

func newActionListView(p sandbox.ActionPage) actionListView {
	v := actionListView{
		MerchantID: p.Merchant.ID, MerchantName: p.Merchant.Name,
		pageHead: newPageHead(p.Query.Paging, p.Total, len(p.Actions)),
		Actions:  make([]actionRecordView, 0, len(p.Actions)),
	}
	for _, a := range p.Actions {
		v.Actions = append(v.Actions, newActionRecordView(a))
	}
	return v
}
