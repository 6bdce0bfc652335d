package sandbox

// transactionResource is GP's Transaction resource, fields in GP's order [GP].
type transactionResource struct {
	ID               string        `json:"id"`
	TimeCreated      string        `json:"time_created"`
	Type             string        `json:"type"`
	Status           string        `json:"status"`
	Channel          string        `json:"channel"`
	CaptureMode      string        `json:"capture_mode,omitempty"`
	Amount           string        `json:"amount"`
	Currency         string        `json:"currency"`
	Country          string        `json:"country"`
	MerchantID       string        `json:"merchant_id"`
	MerchantName     string        `json:"merchant_name"`
	AccountID        string        `json:"account_id"`
	AccountName      string        `json:"account_name"`
	Reference        string        `json:"reference"`
	ParentResourceID string        `json:"parent_resource_id,omitempty"`
	BatchID          string        `json:"batch_id"`
	PaymentMethod    PaymentResult `json:"payment_method"`
	Action           Action        `json:"action"`
}

func (t Transaction) resourceView() transactionResource {
	return transactionResource{
		ID: t.ID, TimeCreated: FormatTime(t.TimeCreated), Type: t.Type, Status: t.Status,
		Channel: t.Channel, CaptureMode: t.CaptureMode, Amount: t.Amount, Currency: t.Currency,
		Country: t.Country, MerchantID: t.MerchantID, MerchantName: t.MerchantName,
		AccountID: t.AccountID, AccountName: t.AccountName, Reference: t.Reference,
		ParentResourceID: t.ParentID, BatchID: t.BatchID, PaymentMethod: t.PaymentMethod,
		Action: t.Action,
	}
}
