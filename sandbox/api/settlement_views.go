package api

import (
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The settlement, deposit and dispute views, as the SDKs' mappers read them [GP].

// systemView names the merchant a settlement record belongs to. The sandbox has no
// merchant hierarchy: it is empty [SB].
type systemView struct {
	MID       string `json:"mid"`
	TID       string `json:"tid,omitempty"`
	Hierarchy string `json:"hierarchy"`
	Name      string `json:"name"`
	DBA       string `json:"dba"`
}

func newSystemView(merchantID, name string) systemView {
	return systemView{MID: merchantID, Name: name, DBA: name}
}

// formatDay is a deposit's day as GP writes it: a date.
func formatDay(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

func listHead(m sandbox.Merchant, a sandbox.Account) merchantAccountView {
	return merchantAccountView(sandbox.HolderOf(m, a))
}

// settlementListView is a page of settled transactions: the transaction list's
// envelope.
type settlementListView struct {
	merchantAccountView
	pageHead
	Transactions []settledSummaryView `json:"transactions"`
}

// settledSummaryView is a transaction of the settlement report: the list's summary
// with its deposit, batch time, ARN and merchant, its status its funding's and its
// amount what was settled, a sale's tip included.
type settledSummaryView struct {
	transactionSummaryView
	DepositID          string             `json:"deposit_id"`
	DepositStatus      string             `json:"deposit_status"`
	DepositTimeCreated string             `json:"deposit_time_created"`
	BatchTimeCreated   string             `json:"batch_time_created"`
	PaymentMethod      settledPaymentView `json:"payment_method"`
	System             systemView         `json:"system"`
}

type settledPaymentView struct {
	summaryPaymentView
	Card settledCardView `json:"card"`
}

type settledCardView struct {
	summaryCardView
	ARN string `json:"arn"`
}

func newSettlementListView(p sandbox.SettlementPage) settlementListView {
	v := settlementListView{
		merchantAccountView: listHead(p.Merchant, p.Account),
		pageHead:            newPageHead(p.Query.Paging, p.Total, len(p.Transactions)),
		Transactions:        make([]settledSummaryView, 0, len(p.Transactions)),
	}
	for _, r := range p.Transactions {
		summary := newTransactionSummaryView(r.Transaction)
		summary.Status, summary.Amount = r.Deposit.Status, r.Transaction.SettledAmount()
		v.Transactions = append(v.Transactions, settledSummaryView{
			transactionSummaryView: summary,
			DepositID:              r.Deposit.ID, DepositStatus: r.Deposit.Status, DepositTimeCreated: formatDay(r.Deposit.TimeCreated),
			BatchTimeCreated: sandbox.FormatTime(r.Row.BatchTime),
			PaymentMethod: settledPaymentView{
				summaryPaymentView: summary.PaymentMethod,
				Card:               settledCardView{summaryCardView: summary.PaymentMethod.Card, ARN: r.Row.ARN},
			},
			System: newSystemView(r.Transaction.MerchantID, r.Transaction.MerchantName),
		})
	}
	return v
}

// depositView is a deposit [GP]: its amount unsigned, funding_type saying which way
// it goes [SB]; every block present, counts and amounts "0" when
// nothing moved (the Node SDK reads disputes.chargebacks.amount unguarded).
type depositView struct {
	ID           string           `json:"id"`
	TimeCreated  string           `json:"time_created"`
	Status       string           `json:"status"`
	FundingType  string           `json:"funding_type"`
	Amount       string           `json:"amount"`
	Currency     string           `json:"currency"`
	BankTransfer bankTransferView `json:"bank_transfer"`
	System       systemView       `json:"system"`
	Sales        sandbox.Totals   `json:"sales"`
	Refunds      sandbox.Totals   `json:"refunds"`
	Disputes     depositDisputes  `json:"disputes"`
	Discounts    sandbox.Totals   `json:"discounts"`
	Fees         feesView         `json:"fees"`
}

type bankTransferView struct {
	MaskedAccountNumberLast4 string `json:"masked_account_number_last4"`
}

type depositDisputes struct {
	Chargebacks sandbox.Totals `json:"chargebacks"`
	Reversals   sandbox.Totals `json:"reversals"`
}

type feesView struct {
	Amount string `json:"amount"`
}

func newDepositView(d sandbox.Deposit) depositView {
	return depositView{
		ID: d.ID, TimeCreated: formatDay(d.TimeCreated), Status: d.Status, FundingType: d.FundingType(),
		Amount: strings.TrimPrefix(d.Amount(), "-"), Currency: d.Currency, BankTransfer: bankTransferView{MaskedAccountNumberLast4: d.BankLast4},
		System: newSystemView(d.MerchantID, d.MerchantName),
		Sales:  d.Sales, Refunds: d.Refunds,
		Disputes:  depositDisputes{Chargebacks: d.Chargebacks, Reversals: d.Reversals},
		Discounts: d.Discounts, Fees: feesView{Amount: d.Fees},
	}
}

func (v depositView) resourceID() string { return v.ID }

type depositListView struct {
	merchantAccountView
	pageHead
	Deposits []depositView `json:"deposits"`
}

func newDepositListView(p sandbox.DepositPage) depositListView {
	v := depositListView{
		merchantAccountView: listHead(p.Merchant, p.Account),
		pageHead:            newPageHead(p.Query.Paging, p.Total, len(p.Deposits)),
		Deposits:            make([]depositView, 0, len(p.Deposits)),
	}
	for _, d := range p.Deposits {
		v.Deposits = append(v.Deposits, newDepositView(d))
	}
	return v
}

// disputeView is a dispute [GP]; a settlement dispute adds its deposit and shows its
// funding as status.
type disputeView struct {
	ID string `json:"id"`
	merchantAccountView
	TimeCreated               string                `json:"time_created"`
	Status                    string                `json:"status"`
	StatusTimeCreated         string                `json:"status_time_created"`
	Stage                     string                `json:"stage"`
	StageTimeCreated          string                `json:"stage_time_created"`
	Amount                    string                `json:"amount"`
	Currency                  string                `json:"currency"`
	ReasonCode                string                `json:"reason_code"`
	ReasonDescription         string                `json:"reason_description"`
	TimeToRespondBy           string                `json:"time_to_respond_by"`
	Result                    string                `json:"result"`
	FundingType               string                `json:"funding_type,omitempty"`
	DepositID                 string                `json:"deposit_id,omitempty"`
	DepositTimeCreated        string                `json:"deposit_time_created,omitempty"`
	System                    systemView            `json:"system"`
	LastAdjustmentAmount      string                `json:"last_adjustment_amount"`
	LastAdjustmentCurrency    string                `json:"last_adjustment_currency"`
	LastAdjustmentFunding     string                `json:"last_adjustment_funding"`
	LastAdjustmentTimeCreated string                `json:"last_adjustment_time_created"`
	Transaction               disputedPaymentView   `json:"transaction"`
	Documents                 []disputeDocumentHead `json:"documents"`
	Action                    actionView            `json:"action"`
}

type disputedPaymentView struct {
	TimeCreated   string             `json:"time_created"`
	Type          string             `json:"type"`
	Amount        string             `json:"amount"`
	Currency      string             `json:"currency"`
	Reference     string             `json:"reference"`
	PaymentMethod disputedMethodView `json:"payment_method"`
}

type disputedMethodView struct {
	Card disputedCardView `json:"card"`
}

// disputedCardView is the disputed card: number is its masked form, as GP answers
// it; the Java SDK reads number, the Node SDK masked_number_first6last4.
type disputedCardView struct {
	Number                  string `json:"number"`
	MaskedNumberFirst6Last4 string `json:"masked_number_first6last4"`
	ARN                     string `json:"arn"`
	Brand                   string `json:"brand"`
	Authcode                string `json:"authcode"`
	BrandReference          string `json:"brand_reference"`
}

type disputeDocumentHead struct {
	ID   string `json:"id"`
	Type string `json:"type,omitempty"`
}

func newDisputeView(d sandbox.Dispute, settlement bool) disputeView {
	t := d.Transaction
	v := disputeView{
		ID:                  d.ID,
		merchantAccountView: merchantAccountView(d.Holder),
		TimeCreated:         sandbox.FormatTime(d.TimeCreated), Status: d.Status, StatusTimeCreated: sandbox.FormatOptionalTime(d.StatusTime),
		Stage: d.Stage, StageTimeCreated: sandbox.FormatOptionalTime(d.StageTime), Amount: d.Amount, Currency: d.Currency,
		ReasonCode: d.ReasonCode, ReasonDescription: d.ReasonDescription, TimeToRespondBy: sandbox.FormatOptionalTime(d.RespondBy),
		Result: d.Result, System: newSystemView(d.MerchantID, d.MerchantName),
		LastAdjustmentAmount: d.LastAdjustment.Amount, LastAdjustmentCurrency: d.LastAdjustment.Currency,
		LastAdjustmentFunding: d.LastAdjustment.Funding, LastAdjustmentTimeCreated: sandbox.FormatOptionalTime(d.LastAdjustment.Time),
		Transaction: disputedPaymentView{
			TimeCreated: sandbox.FormatOptionalTime(t.TimeCreated), Type: t.Type, Amount: t.Amount, Currency: t.Currency, Reference: t.Reference,
			PaymentMethod: disputedMethodView{Card: disputedCardView{
				Number: t.MaskedNumber, MaskedNumberFirst6Last4: t.MaskedNumber, ARN: t.ARN, Brand: t.Brand,
				Authcode: t.Authcode, BrandReference: t.BrandReference,
			}},
		},
		Documents: documentHeads(d.Documents),
		Action:    newActionView(d.Action),
	}
	if settlement {
		v.Status, v.FundingType = d.SettlementStatus(), d.LastAdjustment.Funding
		v.DepositID, v.DepositTimeCreated = d.DepositID, formatDay(d.DepositTime)
	}
	return v
}

func (v disputeView) resourceID() string { return v.ID }

func documentHeads(docs []sandbox.DisputeDocument) []disputeDocumentHead {
	heads := make([]disputeDocumentHead, 0, len(docs))
	for _, d := range docs {
		heads = append(heads, disputeDocumentHead{ID: d.ID, Type: d.Type})
	}
	return heads
}

type disputeListView struct {
	merchantAccountView
	pageHead
	Disputes []disputeView `json:"disputes"`
}

func newDisputeListView(p sandbox.DisputePage) disputeListView {
	v := disputeListView{
		merchantAccountView: listHead(p.Merchant, p.Account),
		pageHead:            newPageHead(p.Query.Paging, p.Total, len(p.Disputes)),
		Disputes:            make([]disputeView, 0, len(p.Disputes)),
	}
	for _, d := range p.Disputes {
		v.Disputes = append(v.Disputes, newDisputeView(d, p.Query.Settlement))
	}
	return v
}

// disputeActionView answers an acceptance or a challenge [GP]: the SDKs read
// action.result_code and status.
type disputeActionView struct {
	ID                string                `json:"id"`
	Status            string                `json:"status"`
	Stage             string                `json:"stage"`
	Amount            string                `json:"amount"`
	Currency          string                `json:"currency"`
	ReasonCode        string                `json:"reason_code"`
	ReasonDescription string                `json:"reason_description"`
	Result            string                `json:"result"`
	Documents         []disputeDocumentHead `json:"documents,omitempty"`
	Action            actionView            `json:"action"`
}

func newDisputeActionView(d sandbox.Dispute, sent []sandbox.DisputeDocument) disputeActionView {
	v := disputeActionView{
		ID: d.ID, Status: d.Status, Stage: d.Stage, Amount: d.Amount, Currency: d.Currency, ReasonCode: d.ReasonCode,
		ReasonDescription: d.ReasonDescription, Result: d.Result, Action: newActionView(d.Action),
	}
	if sent != nil {
		v.Documents = documentHeads(sent)
	}
	return v
}

func (v disputeActionView) resourceID() string { return v.ID }

// disputeDocumentView is a document of a dispute: the Java SDK reads its type from
// action.type (DOCUMENT_SINGLE) [GP].
type disputeDocumentView struct {
	ID         string     `json:"id"`
	B64Content string     `json:"b64_content"`
	Action     actionView `json:"action"`
}

func (v disputeDocumentView) resourceID() string { return v.ID }
