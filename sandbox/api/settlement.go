package api

import (
	"cmp"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// registerSettlement puts the settlement, deposit and dispute routes on r, at their
// plain path and at the partner form.
func (s *Server) registerSettlement(r *mux.Router) {
	for _, prefix := range []string{"", "/merchants/{merchant_id}"} {
		r.Handle(prefix+"/settlement/transactions", s.endpoint(listSettlementTransactions)).Methods(http.MethodGet)
		r.Handle(prefix+"/settlement/deposits", s.endpoint(listDeposits)).Methods(http.MethodGet)
		r.Handle(prefix+"/settlement/deposits/{id}", s.endpoint(getDeposit)).Methods(http.MethodGet)
		r.Handle(prefix+"/settlement/disputes", s.endpoint(listSettlementDisputes)).Methods(http.MethodGet)
		r.Handle(prefix+"/settlement/disputes/{id}", s.endpoint(getSettlementDispute)).Methods(http.MethodGet)
		r.Handle(prefix+"/disputes", s.endpoint(listDisputes)).Methods(http.MethodGet)
		r.Handle(prefix+"/disputes/{id}", s.endpoint(getDispute)).Methods(http.MethodGet)
		r.Handle(prefix+"/disputes/{id}/acceptance", s.endpoint(acceptDispute)).Methods(http.MethodPost)
		r.Handle(prefix+"/disputes/{id}/challenge", s.endpoint(challengeDispute)).Methods(http.MethodPost)
		r.Handle(prefix+"/disputes/{id}/documents/{doc_id}", s.endpoint(getDisputeDocument)).Methods(http.MethodGet)
	}
}

// listSettlementTransactions is GET /settlement/transactions: the transactions the
// sandbox's deposits paid.
var listSettlementTransactions = read(sandbox.OpSettlementTransactionList, []string{"merchant_id"}, func(s *Server, c *call) (any, error) {
	r, err := newQueryReader(c)
	if err != nil {
		return nil, err
	}
	v := r.v
	q := sandbox.SettlementQuery{
		MerchantID: c.vars["merchant_id"], Paging: r.paging("TIME_CREATED", "DESC", sandbox.SettlementOrderings...),
		NumberFirst6: v.Get("number_first6"), NumberLast4: v.Get("number_last4"), DepositStatus: depositStatus(v.Get("deposit_status")),
		Brand: v.Get("brand"), ARN: v.Get("arn"), BrandReference: v.Get("brand_reference"), Authcode: v.Get("authcode"),
		Reference: v.Get("reference"), Status: v.Get("status"), DepositID: v.Get("deposit_id"),
	}
	r.account(c.caller.App)
	r.system(&q.MID, &q.Hierarchy)
	r.choice("status", &q.Status, listedStatuses...)
	r.shaped("deposit_status", isDepositStatus)
	r.date("from_time_created", &q.From)
	r.date("to_time_created", &q.To)
	r.date("from_deposit_time_created", &q.FromDeposit)
	r.date("to_deposit_time_created", &q.ToDeposit)
	r.date("from_batch_time_created", &q.FromBatch)
	r.date("to_batch_time_created", &q.ToBatch)
	if r.err != nil {
		return nil, r.err
	}
	page, err := s.svc.ListSettlementTransactions(c.caller, q)
	if err != nil {
		return nil, err
	}
	return newSettlementListView(page), nil
})

// depositStatus reads a deposit status filter as GP does: the Node SDK sends the
// SPLIT_FUNDING of its enum where the Java SDK sends GP's SPLIT FUNDING, and GP finds
// the same deposits for both (Node ReportingDeposits "filter by deposit status") [GP].
func depositStatus(filter string) string { return strings.ReplaceAll(filter, "_", " ") }

// isDepositStatus reports whether a deposit filter names a deposit status
// (sandbox.DepositStatuses), read as depositStatus reads it. A typo is refused rather
// than listing nothing [SB].
func isDepositStatus(filter string) bool {
	return slices.Contains(sandbox.DepositStatuses, depositStatus(filter))
}

// listDeposits is GET /settlement/deposits.
var listDeposits = read(sandbox.OpDepositList, []string{"merchant_id"}, func(s *Server, c *call) (any, error) {
	r, err := newQueryReader(c)
	if err != nil {
		return nil, err
	}
	v := r.v
	q := sandbox.DepositQuery{
		MerchantID: c.vars["merchant_id"], Paging: r.paging("TIME_CREATED", "DESC", sandbox.DepositOrderings...),
		ID: v.Get("id"), Status: depositStatus(v.Get("status")), Amount: v.Get("amount"), BankLast4: v.Get("masked_account_number_last4"),
	}
	r.account(c.caller.App)
	r.system(&q.MID, &q.Hierarchy)
	r.shaped("status", isDepositStatus)
	r.date("from_time_created", &q.From)
	r.date("to_time_created", &q.To)
	if r.err != nil {
		return nil, r.err
	}
	page, err := s.svc.ListDeposits(c.caller, q)
	if err != nil {
		return nil, err
	}
	return newDepositListView(page), nil
})

// getDeposit is GET /settlement/deposits/{id}.
var getDeposit = read(sandbox.OpDepositDetail, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	d, err := s.svc.GetDeposit(c.caller, c.vars["merchant_id"], c.vars["id"], "/ucp"+c.r.URL.EscapedPath())
	if err != nil {
		return nil, err
	}
	return newDepositView(d), nil
})

// disputeQuery reads the query of both dispute lists.
func disputeQuery(c *call, settlement bool) (sandbox.DisputeQuery, error) {
	r, err := newQueryReader(c)
	if err != nil {
		return sandbox.DisputeQuery{}, err
	}
	v := r.v
	q := sandbox.DisputeQuery{
		MerchantID: c.vars["merchant_id"], Settlement: settlement,
		Paging: r.paging("from_stage_time_created", "DESC", sandbox.DisputeOrderings...),
		ARN:    v.Get("arn"), Brand: v.Get("brand"), DepositID: v.Get("deposit_id"),
	}
	if settlement {
		r.account(c.caller.App)
	}
	r.system(&q.MID, &q.Hierarchy)
	// The Java SDK sends the settlement list's status as STATUS [GP].
	status := cmp.Or(v.Get("status"), v.Get("STATUS"))
	if status != "" && !slices.Contains(sandbox.DisputeStatuses, status) {
		r.invalid("status")
	}
	q.Status = status
	r.choice("stage", &q.Stage, sandbox.DisputeStages...)
	r.date("from_stage_time_created", &q.FromStage)
	r.date("to_stage_time_created", &q.ToStage)
	r.date("from_deposit_time_created", &q.FromDeposit)
	r.date("to_deposit_time_created", &q.ToDeposit)
	return q, r.err
}

// listDisputes is GET /disputes.
var listDisputes = disputeList(sandbox.OpDisputeList, false)

// listSettlementDisputes is GET /settlement/disputes: the disputes whose funds a
// deposit moved.
var listSettlementDisputes = disputeList(sandbox.OpSettlementDisputeList, true)

// disputeList is the operation of a dispute list: the settlement one when settlement.
func disputeList(op sandbox.Operation, settlement bool) operation {
	return read(op, []string{"merchant_id"}, func(s *Server, c *call) (any, error) {
		q, err := disputeQuery(c, settlement)
		if err != nil {
			return nil, err
		}
		page, err := s.svc.ListDisputes(c.caller, q)
		if err != nil {
			return nil, err
		}
		return newDisputeListView(page), nil
	})
}

// getDispute is GET /disputes/{id}.
var getDispute = read(sandbox.OpDisputeDetail, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	d, err := s.svc.GetDispute(c.caller, c.vars["merchant_id"], c.vars["id"])
	if err != nil {
		return nil, err
	}
	return newDisputeView(d, false), nil
})

// getSettlementDispute is GET /settlement/disputes/{id}. The id "null" is how the
// Java SDK writes a dispute it was given none, and GP answers it as it answers the
// list without the account it needs [GP: Java GpApiReportingDisputesTest
// ReportSettlementDisputeDetail_NullID].
var getSettlementDispute = read(sandbox.OpSettlementDisputeDetail, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	if c.vars["id"] == "null" {
		return nil, sandbox.MissingFields("- account_id or account_name")
	}
	d, err := s.svc.GetSettlementDispute(c.caller, c.vars["merchant_id"], c.vars["id"], "/ucp"+c.r.URL.EscapedPath())
	if err != nil {
		return nil, err
	}
	return newDisputeView(d, true), nil
})

// acceptDispute is POST /disputes/{id}/acceptance: the SDKs send no body.
var acceptDispute = read(sandbox.OpDisputeAcceptance, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	d, err := s.svc.AcceptDispute(c.caller, c.vars["merchant_id"], c.vars["id"], c.idem)
	if err != nil {
		return nil, err
	}
	return newDisputeActionView(d, nil), nil
})

// challengeBody is a POST /disputes/{id}/challenge body: the documents, each with its
// content in base64. A content that is not base64 is 40213 naming it [SB]. A document
// with neither a type nor a content is none, as the Node SDK sends a document it was
// given nothing for: `{"documents":[{}]}` is GP's 40065 (Node ReportingDisputes
// "report dispute challenge missing document"); a typed one without content, 40005.
type challengeBody struct {
	Documents []challengeDocument `json:"documents" gp:"max=10"`
}

type challengeDocument struct {
	Type       string `json:"type" gp:"max=50"`
	B64Content string `json:"b64_content" gp:"min=0"` // "" is no content: see challengeDispute
	// .NET serializes its whole document class: these base-class members come as null
	// (the enums as 0) and GP accepts them (.NET GpApiDisputeTest DisputeChallenge).
	ID          web.Ignored `json:"id"`
	Name        web.Ignored `json:"Name"`
	Status      web.Ignored `json:"Status"`
	TimeCreated web.Ignored `json:"TimeCreated"`
	Format      web.Ignored `json:"Format"`
	Category    web.Ignored `json:"Category"`
}

// decodeBase64 reads a document's content: padded or not, as GP's own test content
// comes unpadded [GP: GpApiDisputeTest DisputeChallenge].
func decodeBase64(s string) ([]byte, error) {
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// challengeDispute is POST /disputes/{id}/challenge.
var challengeDispute = operation{
	op:            sandbox.OpDisputeChallenge,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "id"},
	bodyOptional:  true,
	handler: handle(func(s *Server, c *call, req challengeBody) (any, error) {
		docs := make([]sandbox.ChallengeDocument, 0, len(req.Documents))
		for _, d := range req.Documents {
			switch {
			case d.Type == "" && d.B64Content == "":
				continue
			case d.B64Content == "":
				return nil, sandbox.MissingFields("documents.b64_content")
			}
			content, err := decodeBase64(d.B64Content)
			if err != nil {
				return nil, sandbox.InvalidField("documents.b64_content")
			}
			docs = append(docs, sandbox.ChallengeDocument{Type: d.Type, Content: content})
		}
		d, err := s.svc.ChallengeDispute(c.caller, c.vars["merchant_id"], c.vars["id"], docs, c.idem)
		if err != nil {
			return nil, err
		}
		return newDisputeActionView(d, d.Documents[len(d.Documents)-len(docs):]), nil
	}),
}

// getDisputeDocument is GET /disputes/{id}/documents/{doc_id}.
var getDisputeDocument = read(sandbox.OpDisputeDocument, []string{"merchant_id", "id", "doc_id"}, func(s *Server, c *call) (any, error) {
	d, doc, err := s.svc.GetDisputeDocument(c.caller, c.vars["merchant_id"], c.vars["id"], c.vars["doc_id"])
	if err != nil {
		return nil, err
	}
	return disputeDocumentView{
		ID: doc.ID, B64Content: base64.StdEncoding.EncodeToString(sandbox.DisputeDocumentContent(doc)),
		Action: actionView{
			ID: d.Action.ID, Type: "DOCUMENT_SINGLE", TimeCreated: sandbox.FormatTime(s.svc.Clock().Now()),
			ResultCode: "SUCCESS", AppID: c.caller.App.ID, AppName: c.caller.App.Name,
		},
	}, nil
})
