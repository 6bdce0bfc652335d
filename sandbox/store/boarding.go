package store

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// Merchants' accounts (the boardingTx of sandbox/store.go):
//
//	macct:<id>                      sandbox.MerchantAccount
//
// A merchant's boarding record lives in its merchant:<id> record; Merchants is in list.go.

func init() { recordKinds["macct:"] = kindOf[sandbox.MerchantAccount]() }

func (x tx) MerchantAccount(id string) (sandbox.MerchantAccount, error) {
	return get[sandbox.MerchantAccount](x.t, "macct:"+id)
}

func (x tx) PutMerchantAccount(a sandbox.MerchantAccount) error { return put(x.t, "macct:"+a.ID, a) }

func (x tx) MerchantAccounts() ([]sandbox.MerchantAccount, error) {
	return scan[sandbox.MerchantAccount](x.t, "macct:")
}
