package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// text is a plain string field of 1..max characters.
func text(name string, max int) field { return field{name: name, kind: kString, min: 1, max: max} }

// orders is POST /merchants/{merchant_id}/orders (the wire contract, sandbox/api/README.md §4).
var orders = operation{
	op:            sandbox.OpOrder,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	body: []field{
		{name: "products", kind: kArray, elem: kObject, max: 100, fields: []field{
			text("id", 50),
			text("name", 255),
			{name: "device", kind: kObject, fields: []field{
				{name: "quantity", kind: kCount, min: 1, max: 9999},
				text("manufacturer_model", 100),
				text("account_name_format", 255),
			}},
		}},
		text("pricing_profile", 255),
		{name: "status", kind: kEnum, enum: []string{sandbox.OrderForReview}},
		{name: "addresses", kind: kArray, elem: kObject, max: 10, fields: []field{
			{name: "functions", kind: kArray, elem: kString, max: 10},
			text("name", 255), text("email", 255),
			text("line_1", 255), text("line_2", 255), text("line_3", 255),
			text("city", 100), text("state", 100), text("postal_code", 20), text("country", 3),
			{name: "contact_phone", kind: kObject, fields: []field{
				{name: "country_code", kind: kDigits, min: 1, max: 5},
				{name: "subscriber_number", kind: kDigits, min: 1, max: 20},
			}},
		}},
		{name: "payment_method", kind: kObject, fields: []field{
			text("name", 255),
			{name: "card", kind: kObject, fields: []field{
				{name: "number", kind: kDigits, min: 12, max: 19},
				{name: "cvv", kind: kDigits, min: 3, max: 4},
				{name: "expiry_month", kind: kDigits, min: 2, max: 2},
				{name: "expiry_year", kind: kDigits, min: 2, max: 4},
				text("avs_postal_code", 20),
			}},
		}},
		{name: "notifications", kind: kObject, fields: []field{
			{name: "status_url", kind: kURL, min: 1, max: 2048},
		}},
		text("batch_close_time", 50),
	},
	execute: func(s *Server, c *call) (sandbox.Result, error) {
		return s.svc.CreateOrder(c.caller, c.vars["merchant_id"], c.version, orderRequest(c.body), c.idem)
	},
}

// orderRequest converts a checked body into the domain's order request. The card
// number is masked here and the CVV dropped, so neither ever reaches the store.
func orderRequest(body object) sandbox.OrderRequest {
	req := sandbox.OrderRequest{
		PricingProfile: str(body, "pricing_profile"),
		Status:         str(body, "status"),
		StatusURL:      str(body, "notifications", "status_url"),
		BatchCloseTime: str(body, "batch_close_time"),
	}
	for _, v := range list(body, "products") {
		p := v.(object)
		req.Products = append(req.Products, sandbox.OrderProduct{
			ID: str(p, "id"), Name: str(p, "name"), Quantity: num(p, "device", "quantity"),
			ManufacturerModel: str(p, "device", "manufacturer_model"),
			AccountNameFormat: str(p, "device", "account_name_format"),
		})
	}
	for _, v := range list(body, "addresses") {
		a := v.(object)
		addr := sandbox.OrderAddress{
			Name: str(a, "name"), Email: str(a, "email"), Line1: str(a, "line_1"),
			Line2: str(a, "line_2"), Line3: str(a, "line_3"), City: str(a, "city"),
			State: str(a, "state"), PostalCode: str(a, "postal_code"), Country: str(a, "country"),
			PhoneCountry: str(a, "contact_phone", "country_code"),
			PhoneNumber:  str(a, "contact_phone", "subscriber_number"),
		}
		for _, f := range list(a, "functions") {
			addr.Functions = append(addr.Functions, f.(string))
		}
		req.Addresses = append(req.Addresses, addr)
	}
	if pm := sub(body, "payment_method"); pm != nil {
		req.PaymentMethod = &sandbox.OrderPayment{
			Name:          str(pm, "name"),
			MaskedNumber:  sandbox.MaskCardNumber(str(pm, "card", "number")),
			ExpiryMonth:   str(pm, "card", "expiry_month"),
			ExpiryYear:    str(pm, "card", "expiry_year"),
			AVSPostalCode: str(pm, "card", "avs_postal_code"),
		}
	}
	return req
}
