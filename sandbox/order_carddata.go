package sandbox

// WithCardDataMasked returns the request with card data masked in every free-text
// field (see MaskCardData): a card number a client typed into a name or an address
// line is not stored in clear. The payment card's own number arrives masked already.
func (r OrderRequest) WithCardDataMasked() OrderRequest {
	m := MaskCardData
	r.PricingProfile, r.StatusURL, r.BatchCloseTime = m(r.PricingProfile), m(r.StatusURL), m(r.BatchCloseTime)
	r.Products = append([]OrderProduct(nil), r.Products...)
	for i, p := range r.Products {
		p.ID, p.Name, p.ManufacturerModel, p.AccountNameFormat = m(p.ID), m(p.Name), m(p.ManufacturerModel), m(p.AccountNameFormat)
		r.Products[i] = p
	}
	r.Addresses = append([]OrderAddress(nil), r.Addresses...)
	for i, a := range r.Addresses {
		a.Functions = append([]string(nil), a.Functions...)
		for k, f := range a.Functions {
			a.Functions[k] = m(f)
		}
		a.Name, a.Email, a.Line1, a.Line2, a.Line3 = m(a.Name), m(a.Email), m(a.Line1), m(a.Line2), m(a.Line3)
		a.City, a.State, a.PostalCode, a.Country = m(a.City), m(a.State), m(a.PostalCode), m(a.Country)
		a.PhoneCountry, a.PhoneNumber = m(a.PhoneCountry), m(a.PhoneNumber)
		r.Addresses[i] = a
	}
	if r.PaymentMethod != nil {
		p := *r.PaymentMethod
		p.Name, p.MaskedNumber, p.AVSPostalCode = m(p.Name), MaskCardNumber(p.MaskedNumber), m(p.AVSPostalCode)
		r.PaymentMethod = &p
	}
	return r
}

// withCardDataMasked returns lodging data with card data masked in its free-text
// references; nil stays nil.
func (l *Lodging) withCardDataMasked() *Lodging {
	if l == nil {
		return nil
	}
	m := *l
	m.BookingReference = MaskCardData(m.BookingReference)
	m.ChargeItems = append([]LodgingItem(nil), m.ChargeItems...)
	for i := range m.ChargeItems {
		m.ChargeItems[i].Reference = MaskCardData(m.ChargeItems[i].Reference)
	}
	return &m
}
