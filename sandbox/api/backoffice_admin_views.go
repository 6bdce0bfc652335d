package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// The deposit and dispute views the admin API lists, as GP's API answers one.

// DepositView is a deposit as GET /settlement/deposits/{id} answers it.
type DepositView = depositView

// NewAdminDepositView is a deposit as GET /settlement/deposits/{id} answers it.
func NewAdminDepositView(d sandbox.Deposit) DepositView { return newDepositView(d) }

// DisputeView is a dispute as GET /disputes/{id} answers it.
type DisputeView = disputeView

// NewAdminDisputeView is a dispute as GET /disputes/{id} answers it.
func NewAdminDisputeView(d sandbox.Dispute) DisputeView { return newDisputeView(d, false) }
