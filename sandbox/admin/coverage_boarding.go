package admin

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// boardingItems are the checklist's merchant boarding and account items: what the
// Java, .NET and PHP GpApiMerchantsOnboardTest and GpApiMerchantAccountsTest exercise.
func boardingItems() []checkItem {
	items := []struct {
		id, title, by, source string
		op                    sandbox.Operation
	}{
		{"merchant.board", "Merchant boarded", "POST /merchants answered 200", "GpApiMerchantsOnboardTest BoardMerchant (Java, .NET, PHP)", sandbox.OpMerchantCreate},
		{"merchant.detail", "Merchant read", "GET /merchants/{id} answered 200", "GpApiMerchantsOnboardTest GetMerchantInfo (Java, .NET, PHP)", sandbox.OpMerchantDetail},
		{"merchant.list", "Merchant search", "GET /merchants answered 200", "GpApiMerchantsOnboardTest SearchMerchants (Java, .NET, PHP)", sandbox.OpMerchantList},
		{"merchant.edit", "Merchant edited", "PATCH /merchants/{id} answered 200", "GpApiMerchantsOnboardTest EditMerchant* (Java, .NET, PHP)", sandbox.OpMerchantEdit},
		{"merchant.document", "Merchant document uploaded", "POST /merchants/{id}/documents answered 200", "GpApiMerchantsOnboardTest UploadMerchantDocs (Java, .NET, PHP)", sandbox.OpMerchantDocument},
		{"account.list", "Account search", "GET /accounts or /merchants/{id}/accounts answered 200", "GpApiMerchantAccountsTest FindAccountsInfo* (Java, .NET, PHP)", sandbox.OpAccountList},
		{"account.detail", "Account read", "GET /accounts/{id} answered 200", "GpApiMerchantAccountsTest AccountDetails (Java, .NET, PHP)", sandbox.OpAccountDetail},
		{"account.edit", "Account edited", "PATCH /merchants/{id}/accounts/{id} answered 200", "GpApiMerchantAccountsTest EditAccountInformation (Java, .NET, PHP)", sandbox.OpAccountEdit},
		{"account.addresses", "Address lookup", "GET /accounts/{id}/addresses answered 200", "GpApiMerchantAccountsTest AccountAddressLookup (.NET, PHP)", sandbox.OpAddressList},
	}
	out := make([]checkItem, 0, len(items))
	for _, it := range items {
		out = append(out, checkItem{ID: it.id, Group: "merchants", Title: it.title, By: it.by, Source: it.source,
			matches: func(o *observation) bool { return o.succeeded(it.op) }})
	}
	return out
}
