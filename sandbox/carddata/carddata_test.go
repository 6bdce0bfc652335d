package carddata

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain PAN", "card 4263970000005262 ok", "card 426397******5262 ok"},
		{"dashes", "3530-1113-3330-0000", "3530-11**-****-0000"},
		{"spaces", "4263 9700 0000 5262", "4263 97** **** 5262"},
		{"amex groups", "3714 496353 98431", "3714 49**** *8431"},
		// A date joined to a card number by separators is one sequence with it: the
		// sequences that pass the check are masked, the card number among them.
		{"PAN after a date", "2026-11-23 4263-9700-0000-5262", "2026-11-** ****-****-****-5262"},
		{"PAN after a date with a comma", "2026-11-23, 4263-9700-0000-5262", "2026-11-23, 4263-97**-****-5262"},
		{"not Luhn", "4263970000005263", "4263970000005263"},
		// A path echoed in an answer may hold one with URL escapes: read unescaped.
		{"URL escapes", "/ucp/transactions/4195%201961%209700%200006", "/ucp/transactions/4195 19** **** 0006"},
		{"URL escapes, no card", "/ucp/transactions/TRN_a%20b", "/ucp/transactions/TRN_a%20b"},
		{"URL escapes beside a stray %", "50% off 4195%201961%209700%200006", "50% off 4195 19** **** 0006"},
		// Its ^ escaped, a track is no track as written; undone, %B4 stays as written,
		// a lone byte B4 being no text.
		{"track 1 with its delimiters escaped", "/ucp/transactions/%B4111111111111111%5EDOE%2FJOHN%5E25121010000000000000%3F", "/ucp/transactions/[REDACTED]"},
		{"an escaped letter that is text", "caf%C3%A9 4195%201961%209700%200006", "café 4195 19** **** 0006"},
		{"date and phone kept", "2026-11-23 +1 555-0100-2000", "2026-11-23 +1 555-0100-2000"},
		{"identifier kept", "MER_00000000000000000000000000000001", "MER_00000000000000000000000000000001"},
		{"track 1", "x %B4263970000005262^DOE/JOHN^2512101000000000000? y", "x [REDACTED] y"},
		{"track 1 no sentinel", "B4263970000005262^DOE/JOHN^25121010000", "[REDACTED]"},
		{"track 2", ";4263970000005262=25121010000000000?", "[REDACTED]"},
		{"track 2 EMV form", "4263970000005262D25121010000000000F", "[REDACTED]"},
		{"two cards", "4263970000005262, 3530111333300000", "426397******5262, 353011******0000"},
		{"two cards joined", "4263970000005262 3530111333300000", "426397********** ****11******0000"},
		{"short digits kept", "amount 1000 cvv-like 123", "amount 1000 cvv-like 123"},
		{"id run not Luhn kept", "/transactions/TRN_CapturedSale000000000000000001/adjustment", "/transactions/TRN_CapturedSale000000000000000001/adjustment"},
		{"id run that passes Luhn", "/transactions/TRN_4263970000005262", "/transactions/TRN_426397******5262"},
		{"card number after an id run", "TRN_000000000000000001 then 4263970000005262", "TRN_000000000000000001 then 426397******5262"},
		{"inside a longer run", "00004263970000005262", "0000426397******5262"},
		{"followed by its expiry", "42639700000052621229", "426397*********21229"},
		{"four spaces", "4263    9700    0000    5262", "4263    97**    ****    5262"},
		{"one digit at a time", "4 2 6 3 9 7 0 0 0 0 0 0 5 2 6 2", "4 2 6 3 9 7 * * * * * * 5 2 6 2"},
		{"dots, underscores, slashes", "4263.9700_0000/5262", "4263.97**_****/5262"},
		{"no-break and ideographic spaces", "4263\u00a09700\u30000000\u202f5262", "4263\u00a097**\u3000****\u202f5262"},
		{"fullwidth digits", "４２６３９７００００００５２６２", "４２６３９７******５２６２"},
		{"Arabic-Indic digits", "٤٢٦٣٩٧٠٠٠٠٠٠٥٢٦٢", "٤٢٦٣٩٧******٥٢٦٢"},
		{"zero-width spaces", "4263\u200b9700\u200b0000\u200b5262", "4263\u200b97**\u200b****\u200b5262"},
		{"EMV 5A hex in free text", "ref 5A084263970000005262 ok", "ref 5A0842639*******5262 ok"},
		{"EMV 5A hex of an odd-length number", "5A074222222222222F", "5A07422222***2222F"},
		{"track 1 with a long name", "%B4263970000005262^" + strings.Repeat("N", 40) + "^2512101000000000000?", "[REDACTED]"},
		{"leading zero is no card number", "0000000000000000", "0000000000000000"},
		// These UUIDs hold digits that pass the check across their dashes.
		{"UUID kept", "c5921403-8716-6234-3d2b-b6622bc468e2", "c5921403-8716-6234-3d2b-b6622bc468e2"},
		{"UUID in a path kept", "/payment-methods/PMT_90422869-8158-eb61-4850-a984f52a083d", "/payment-methods/PMT_90422869-8158-eb61-4850-a984f52a083d"},
		{"upper-case UUID kept", "key=99398467-1155-4D11-220D-46D4625016CB", "key=99398467-1155-4D11-220D-46D4625016CB"},
		{"card number beside a UUID", "c5921403-8716-6234-3d2b-b6622bc468e2 4263970000005262", "c5921403-8716-6234-3d2b-b6622bc468e2 426397******5262"},
		{"UUID glued to more hex is no UUID", "c5921403-8716-6234-3d2b-b6622bc468e2f", "c592140*-****-*234-3d2b-b6622bc468e2f"},
		{"card number in UUID groups is no UUID", "4263-9700-0000-5262", "4263-97**-****-5262"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mask(tt.in); got != tt.want {
				t.Errorf("Mask(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// Excerpt masks before it cuts: cut first, a card number across the 40th byte
// would keep ten of its digits, too few to be known as one and masked afterwards.
func TestExcerpt(t *testing.T) {
	x30 := strings.Repeat("x", 30)
	tests := []struct{ name, in, want string }{
		{"short value kept", "TRN_1", "TRN_1"},
		{"forty bytes kept", strings.Repeat("a", 40), strings.Repeat("a", 40)},
		{"long value cut", strings.Repeat("a", 41), strings.Repeat("a", 40) + "…"},
		{"card number masked", "4263970000005262", "426397******5262"},
		{"card number across the cut", x30 + "4263970000005262", x30 + "426397****…"},
		{"no rune split", strings.Repeat("a", 39) + "é", strings.Repeat("a", 39) + "…"},
	}
	for _, tt := range tests {
		if got := Excerpt(tt.in); got != tt.want {
			t.Errorf("%s: Excerpt(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestMaskJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"card block", `{"payment_method":{"card":{"number":"4263970000005262","cvv":"123"}}}`,
			`{"payment_method":{"card":{"number":"426397******5262","cvv":"[REDACTED]"}}}`},
		{"nothing to mask kept as sent", `{"amount": 10,  "reference":"r"}`, `{"amount": 10,  "reference":"r"}`},
		{"key case", `{"CVV":"1357","Security_Code":"999","PIN-Block":"8F3A1B2C3D4E5F60"}`,
			`{"CVV":"[REDACTED]","Security_Code":"[REDACTED]","PIN-Block":"[REDACTED]"}`},
		{"escaped key", `{"\u0063vv":"123"}`, `{"cvv":"[REDACTED]"}`},
		{"escaped digits", `{"name":"\u0034263970000005262"}`, `{"name":"426397******5262"}`},
		{"pretty", "{\n  \"card\": {\n    \"number\" : \"4263970000005262\",\n    \"cvv\" :\n \"2468\"\n  }\n}",
			"{\n  \"card\": {\n    \"number\" : \"426397******5262\",\n    \"cvv\" :\n \"[REDACTED]\"\n  }\n}"},
		{"syntax error", `{"payment_method":{"card":{"number":"4263970000005262","cvv":"1357",}}}`,
			`{"payment_method":{"card":{"number":"426397******5262","cvv":"[REDACTED]",}}}`},
		{"cut short in a value", `{"card":{"cvv":"13`, `{"card":{"cvv":"[REDACTED]`},
		{"number values", `{"cvv":2468,"name":4263970000005262}`, `{"cvv":"[REDACTED]","name":"426397******5262"}`},
		{"form", `number=4263970000005262&cvv=9753&pin=1234`, `number="426397******5262"&cvv="[REDACTED]"&pin="[REDACTED]"`},
		{"track in a string", `{"t":"%B4263970000005262^DOE/JOHN^2512101?"}`, `{"t":"[REDACTED]"}`},
		{"EMV tag", `{"card":{"tag":"9F02060000000010005A0842639700000052625F24032512319F270100"}}`,
			`{"card":{"tag":"9F02060000000010005A08426397******52625F24032512319F270100"}}`},
		{"not a card number", `{"merchant":"MER_00000000000000000000000000000001"}`, `{"merchant":"MER_00000000000000000000000000000001"}`},
		{"upper case card block", `{"CARD":{"NUMBER":"4263970000005262","Tag":"5A084263970000005262"}}`,
			`{"CARD":{"NUMBER":"426397******5262","Tag":"5A08426397******5262"}}`},
		{"non-ASCII key lowering to a secret", `{"P\u0130N":"1234","PİN_block":"8F3A"}`, `{"PİN":"[REDACTED]","PİN_block":"[REDACTED]"}`},
		{"Kelvin sign lowering to a secret", "{\"trac\u212A\":\"B4263970000005262^DOE/JOHN^2512\"}", "{\"trac\u212A\":\"[REDACTED]\"}"},
		{"long key", `{"a_member_name_longer_than_thirty_two_bytes_with_cvv":"123"}`,
			`{"a_member_name_longer_than_thirty_two_bytes_with_cvv":"[REDACTED]"}`},
		{"bare numbers kept", `{"amount":1000,"n":-1.5e3,"ok":true}`, `{"amount":1000,"n":-1.5e3,"ok":true}`},
		{"bare id with digit runs", `{"id":TRN_000000000000000001}`, `{"id":TRN_000000000000000001}`},
		{"card number after a non-card run", `{"ref":"000000000000000001 4263970000005262"}`, `{"ref":"000000000000000001 426397******5262"}`},
		{"other names of a CVV", `{"cardCode":"123","card_code":"456","CVD":"7"}`, `{"cardCode":"[REDACTED]","card_code":"[REDACTED]","CVD":"[REDACTED]"}`},
		{"encryption key, not its serial number", `{"encryption":{"version":"01","key":"9F8E","ksn":"FFFF01"},"key":"k"}`,
			`{"encryption":{"version":"01","key":"[REDACTED]","ksn":"FFFF01"},"key":"k"}`},
		{"tokens and app keys", `{"access_token":"abc","app_key":"k1","token":"t"}`, `{"access_token":"[REDACTED]","app_key":"[REDACTED]","token":"[REDACTED]"}`},
		{"card number in a key", `{"4263970000005262":"x"}`, `{"426397******5262":"x"}`},
		// Ids, references and URLs are shown as sent, as the API echoes them, where free
		// text beside them is masked: a long run of digits is not searched for a card
		// number inside it.
		{"numeric reference", `{"reference":"2024120500012345","description":"4263970000005262"}`,
			`{"reference":"2024120500012345","description":"426397******5262"}`},
		{"an acquirer reference number is a reference", `{"card":{"arn":"74537604221431003881865"},"order_reference":"42639700000052620001"}`,
			`{"card":{"arn":"74537604221431003881865"},"order_reference":"42639700000052620001"}`},
		// But a card number standing whole in one is masked, by any spelling of the name.
		{"references and ids that are card numbers", `{"order":{"reference":"4263970000005262"},"referenceNumber":4263970000005262,"EcrId":"4263 9700 0000 5262","brand_reference":"INV-4263970000005262","ARN":"4263970000005262"}`,
			`{"order":{"reference":"426397******5262"},"referenceNumber":"426397******5262","EcrId":"4263 97** **** 5262","brand_reference":"INV-426397******5262","ARN":"426397******5262"}`},
		{"status URL", `{"notifications":{"status_url":"https://example.com/4263970000005262?r=7453760422143100388186"}}`,
			`{"notifications":{"status_url":"https://example.com/426397******5262?r=7453760422143100388186"}}`},
		// A group before the card that makes another card-shaped span with its first
		// groups leaves it hidden still; a date or a millisecond timestamp is no card.
		{"a card after a year", `{"reference":"2024 4111 1111 1111 1111","ecr_id":"2020 4263 9700 0000 5262","order_id":"1765083654035","order_reference":"202412020002"}`,
			`{"reference":"2024 4111 11** **** 1111","ecr_id":"2020 4263 97** **** 5262","order_id":"1765083654035","order_reference":"202412020002"}`},
		{"a card escaped twice, as an answer echoes an escaped path", `{"detailed_error_description":"Transactions %34%32%36%33%39%37%30%30%30%30%30%30%35%32%36%32 not found at this /ucp/transactions/%2534%2532%2536%2533%2539%2537%2530%2530%2530%2530%2530%2530%2535%2532%2536%2532"}`,
			`{"detailed_error_description":"Transactions 426397******5262 not found at this /ucp/transactions/426397******5262"}`},
		{"a card as written beside one escaped", `{"a_url":"4263970000005262%31-4195%201961%209700%200006"}`, `{"a_url":"426397******52621-4195 19** **** 0006"}`},
		{"track 2 as a form's pair", ";4263970000005262=25121010000000000?&a=1", `[REDACTED]&a=1`},
		{"many groups", `{"reference":"` + strings.Repeat("1 ", 8000) + `"}`, `{"reference":"` + strings.Repeat("1 ", 8000) + `"}`},
		// Beside other digits, written with escapes, or after an ARN: still one.
		{"card numbers among other digits", `{"a_url":"https://h:8080/4263970000005262","b_url":"https://10.0.0.1/2024/4263970000005262","reference":"order-2024-12-05-4263970000005262","ecr_id":"INV 4263 9700 0000 5262 2024","d_url":"/x/4263%209700%200000%205262","arn":"74537604221431003881865/4263970000005262"}`,
			`{"a_url":"https://h:8080/426397******5262","b_url":"https://10.0.0.1/2024/426397******5262","reference":"order-2024-12-05-426397******5262","ecr_id":"INV 4263 97** **** 5262 2024","d_url":"/x/4263 97** **** 5262","arn":"74537604221431003881865/426397******5262"}`},
		{"a reference holds no card member", `{"reference":{"card":{"number":"4263970000005262"}}}`, `{"reference":{"card":{"number":"426397******5262"}}}`},
		{"track data in a reference", `{"reference":";4263970000005262=25121010000000000?"}`, `{"reference":"[REDACTED]"}`},
		{"track 1 with an escaped quote in its name", `{"description":"%B4325326327000005^DOE/JO\"HN^3012101000000000000987654321?"}`, `{"description":"[REDACTED]"}`},
		{"track 1 with a grouped number", `{"description":"%B4325 3263 2700 0005^DOE/JOHN^3012101000000000000987654321?"}`, `{"description":"[REDACTED]"}`},
		{"a CVV named like an id", `{"cid":"1234"}`, `{"cid":"[REDACTED]"}`},
		// A form is read unescaped, its bracketed names as names.
		{"a form with bracketed names", `card[number]=4135136137000008&card[cvv]=1357&description=4135+1361+3700+0008&note=4135%201361%203700%200008`,
			`card[number]="413513******0008"&card[cvv]="[REDACTED]"&description="4135 13** **** 0008"&note="4135 13** **** 0008"`},
		// An escaped delimiter or quote stays inside its value: the form is never read
		// again once unescaped, and what masking leaves alone is shown as sent.
		{"a form with escaped delimiters", `app_id=x&nonce=%22&secret=Zm9vYmFyc2VjcmV0%3D&description=%22&card[cvv][]=8642&cvv=12%2634&pin=0412AC89%20ABCDEF67&token=abc+def`,
			`app_id=x&nonce=%22&secret="[REDACTED]"&description=%22&card[cvv][]="[REDACTED]"&cvv="[REDACTED]"&pin="[REDACTED]"&token="[REDACTED]"`},
		{"a query's escaped & and = stay in their value", `reference=a%26b%3Dc&page_size=5&name=Joe+Smith`, `reference=a%26b%3Dc&page_size=5&name=Joe+Smith`},
		{"digits an escape joins only as sent", `note=4111%21111111111111`, `note="4111%211111***11111"`},
		{"track 1 whose start an escape reads as a byte", `note=%B4111111111111111^DOE/JOHN^25121010000000000000?&a=1&%B4111111111111111^DOE^2512101?`,
			`[REDACTED]&a=1&[REDACTED]`},
		{"a masked name is quoted, its escaped & and = inside", `x%26y%3D4111111111111111=1`, `"x\u0026y=411111******1111"=1`},
		{"a card number escapes hide", `note=4111%201111%201111%201111&card%5Bnumber%5D=4111111111111111`,
			`note="4111 11** **** 1111"&card%5Bnumber%5D="411111******1111"`},
		{"a form with a trailing line break", "a=1&cvv=123\n", `a=1&cvv="[REDACTED]"`},
		{"other spellings of a CVV and a PIN block", `{"card":{"cv2":"4321","verification_value":"8642","card_verification":"9753","pinblk":"1A2B3C4D5E6F7A8B","epin":"99AABBCCDDEEFF00","cvv_result":"M"}}`,
			`{"card":{"cv2":"[REDACTED]","verification_value":"[REDACTED]","card_verification":"[REDACTED]","pinblk":"[REDACTED]","epin":"[REDACTED]","cvv_result":"M"}}`},
		{"what a check found is no secret", `{"cvv_result":"MATCHED","cvv_indicator":"PRESENT","cvv":"123"}`,
			`{"cvv_result":"MATCHED","cvv_indicator":"PRESENT","cvv":"[REDACTED]"}`},
		// A card member holding an array or an object is masked in every value under it.
		{"card members sent as arrays and objects", `{"card":{"cvv":["987",[654]],"pin_block":{"value":"62A1C3F0E1D2B495"},"number":[4263970000005263],"brand":"VISA"}}`,
			`{"card":{"cvv":["[REDACTED]",["[REDACTED]"]],"pin_block":{"value":"[REDACTED]"},"number":["426397******5263"],"brand":"VISA"}}`},
		// A member's own card class comes before the one it is inside; a value under
		// EMV data is read as free text too.
		{"a secret inside a card number or EMV member", `{"card_number":{"pin_block":"8F3A1B2C3D4E5F60"},"pan":[{"cvv":"1234567890123"}],"emv_data":{"pin_block":"0106AABBCCDDEEFF","cvv":"0100","card_number":"01051234567890"}}`,
			`{"card_number":{"pin_block":"[REDACTED]"},"pan":[{"cvv":"[REDACTED]"}],"emv_data":{"pin_block":"[REDACTED]","cvv":"[REDACTED]","card_number":"010512****7890"}}`},
		{"a card number across the items of EMV data in an array", `{"emv_data":["07041960369116010709024347"]}`, `{"emv_data":["0704196**************24347"]}`},
		{"a form's secret inside EMV data", `emv_data[pin_block]=0106AABBCCDDEEFF&emv_data[cvv]=0100&emv_data[0]=07041960369116010709024347`,
			`emv_data[pin_block]="[REDACTED]"&emv_data[cvv]="[REDACTED]"&emv_data[0]="0704196**************24347"`},
		// A form's member is classed as JSON's is: a secret inside a card-number member
		// is a secret, as {"card_number":{"pin_block":…}} is.
		{"a form's secret inside a card number member", `card_number[pin_block][value]=8F3A1B2C3D4E5F60`,
			`card_number[pin_block][value]="[REDACTED]"`},
		// Escapes undone level by level: a %25 before a card number, decoded, must not
		// turn its first digits into an escape.
		{"a card after an escaped percent sign", `{"description":"%254111111111111111 paid by 5555555555554444","reference":"x%254263970000005262"}`,
			`{"description":"%254111********1111 paid by 555555******4444","reference":"x%426397******5262"}`},
		// What is shown at a level is read as many levels below it as the text is read
		// below its own: a card five levels down beside one four levels down.
		{"a card one level below the deepest shown", `{"description":"4263%2525252F9700%2525252F0000%2525252F5262 4111%252525252F1111%252525252F1111%252525252F1111"}`,
			`{"description":"4263/97**/****/***2 4111/11**/****/1111"}`},
		// Tracks as people write them: track 1 without its format code, track 2 with a
		// grouped number, a no-break space in track 1's number; a match starting inside
		// a JSON escape leaves the escape whole, the value masked once decoded.
		{"tracks written loosely", `{"a":"4263970000005262^DOE/JOHN^2512101","b":";4263 9700 0000 5262=2512101?","c":"%B4263\u00a09700\u00a00000\u00a05262^DOE/JOHN^2512101000000000000?"}`,
			`{"a":"[REDACTED]","b":"[REDACTED]","c":"[REDACTED]"}`},
		{"a track inside a JSON escape", `{"note":"\b4263970000005262^DOE/JOHN^25121011234567890","n2":"\u4263970000005262=25121011234567890"}`,
			`{"note":"\b[REDACTED]","n2":"䉣[REDACTED]"}`},
		{"an escaped track beside an escaped card", `{"description":"/ucp/transactions/%B4111111111111111%5EDOE%2FJOHN%5E25121010000000000000%3F and %254111111111111111"}`,
			`{"description":"/ucp/transactions/[REDACTED] and %411111******1111"}`},
		{"a card sent as an array", `{"card":[{"number":"4263970000005263","cvv":"123","brand":"VISA"}]}`,
			`{"card":[{"number":"426397******5263","cvv":"[REDACTED]","brand":"VISA"}]}`},
		{"a card keyed in as one value, and a test card's name", `{"card":"0426397000005262","x":{"card":"4263 9700 0000 5263"},"y":{"card":"visa_chip"},"card_holder":{"card":{"card":"0426397000005262 12/29"}},"z":{"card":"０４２６３９７０００００５２６２"}}`,
			`{"card":"042639******5262","x":{"card":"4263 97** **** 5263"},"y":{"card":"visa_chip"},"card_holder":{"card":{"card":"042639********** *2/29"}},"z":{"card":"０４２６３９******５２６２"}}`},
		{"form members by index", `cvv[0]=987&card[cvv][0]=123&pin_block[1]=62A1C3F0E1D2B495&cvv[value]=8642&card[0][number]=4263970000005263&card=0426397000005262&card[brand]=VISA`,
			`cvv[0]="[REDACTED]"&card[cvv][0]="[REDACTED]"&pin_block[1]="[REDACTED]"&cvv[value]="[REDACTED]"&card[0][number]="426397******5263"&card="042639******5262"&card[brand]=VISA`},
		{"a change of the card's tag", `{"changes":{"payment_method.card.tag":{"from":"","to":"5A084263970000005262"},"amount":{"to":"4263970000005262"}}}`,
			`{"changes":{"payment_method.card.tag":{"from":"","to":"5A08426397******5262"},"amount":{"to":"426397******5262"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(MaskJSON([]byte(tt.in)))
			if got != tt.want {
				t.Errorf("MaskJSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
				t.Errorf("valid JSON became invalid: %s", got)
			}
		})
	}
}

func TestMaskEMV(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"PAN tag", "5A084263970000005262", "5A08426397******5262"},
		{"track 2 equivalent", "57114263970000005262D2512101000000000F", "5711**********************************"},
		{"other tags kept", "9F0206000000001000", "9F0206000000001000"},
		{"PAN in a template", "7010" + "5A084263970000005262" + "5F2403251231", "7010" + "5A08426397******5262" + "5F2403251231"},
		{"track 2 two templates deep", "770E" + "700C" + "570A4263970000005262D251", "770E700C570A********************"},
		{"template that does not parse", "70035A0942", "7003******"},
		{"card number in another tag", "DF01084263970000005262", "DF0108426397******5262"},
		{"cardholder name kept", "5F200A444F452F4A4F484E2020", "5F200A444F452F4A4F484E2020"},
		{"not TLV", "5A09", "[REDACTED]"},
		{"not hex", "4263-9700-0000-5262", "[REDACTED]"},
		{"lower case", "5a084263970000005262", "5A08426397******5262"},
		// Read as one text, the amount's digits and the tags around them pass the check.
		{"PAN beside amounts", "5A0842639700000052629F02060000000025009F0306000000000000",
			"5A08426397******52629F02060000000025009F0306000000000000"},
		{"a star outside a value", "5A*84263970000005262", "[REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MaskEMV(tt.in)
			if got != tt.want {
				t.Errorf("MaskEMV(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// The journal masks what the store keeps masked: again, nothing changes.
			if again := MaskEMV(got); got != Redacted && again != got {
				t.Errorf("MaskEMV(%q) = %q, masked again %q", tt.in, got, again)
			}
		})
	}
}

// The masking work is linear: a body of a million digit groups is masked quickly and
// without error.
func TestMaskManyGroups(t *testing.T) {
	in := strings.Repeat("1 ", 500000)
	if got := Mask(in); len(got) != len(in) {
		t.Errorf("length changed: %d, want %d", len(got), len(in))
	}
}

// The prefilter may let through text without track data, never hold back text with it.
func TestScanDigitRunsNeverMissesTrackData(t *testing.T) {
	tracks := []string{
		"%B4111111111111111^DOE/JOHN^2512101?",
		"b4111111111111111^A^2512",
		";4111111111111111=25121010000000000000?",
		"4111111111111111D2512101",
		"x4761739001010010d2512",
	}
	for _, s := range tracks {
		if !trackData.MatchString(s) {
			t.Fatalf("%q: not track data to the expression; fix the test", s)
		}
		_, fromString := scanDigitRuns(s)
		_, fromBytes := scanDigitRuns([]byte(s))
		if !fromString || !fromBytes {
			t.Errorf("scanDigitRuns(%q): trackLike false: the expression would not run", s)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0123456789^=Dd;%Bb? /"
	for range 200000 {
		b := randomDigitText(r, 10, 40, 3, alphabet)
		if _, trackLike := scanDigitRuns(b); trackData.Match(b) && !trackLike {
			t.Fatalf("scanDigitRuns(%q): trackLike false, but the expression matches", b)
		}
	}
	for _, s := range []string{"/transactions/TRN_CapturedSale000000000000000001/adjustment", "2021-03-22T10:00:00Z"} {
		if _, trackLike := scanDigitRuns(s); trackLike {
			t.Errorf("scanDigitRuns(%q): trackLike true: the expression runs for nothing", s)
		}
	}
}

// The prefilter lets ids, times and amounts pass without the card-number scan: no
// sequence of theirs has twelve digits from its first non-zero one.
func TestScanDigitRunsPassesIDsAndTimes(t *testing.T) {
	for s, want := range map[string]bool{
		"MER_00000000000000000000000000000001":         false,
		"TRN_CapturedSale000000000000000001":           false,
		"2026-11-25T22:30:22.493Z 2021-03-22 10:00:00": false,
		`"amount":"99999999999"`:                       false,
		"000000000004263970000005262":                  true,
		"4263 9700 0000 5262":                          true,
		"name é":                                       true, // any non-ASCII byte may be a digit or a space
	} {
		if cardLike, _ := scanDigitRuns(s); cardLike != want {
			t.Errorf("scanDigitRuns(%q): cardLike %v, want %v", s, cardLike, want)
		}
	}
}

// hasCardNumber and NoneIn decide, without a copy, that a text has nothing to
// mask: they must agree with the masking itself on every text.
func TestNoneInAgreesWithMasking(t *testing.T) {
	// A run read alone must not lose what stands beside it: here a card number
	// would pass for a UUID's digits if the letter before or after it were cut off.
	for _, text := range []string{
		"x41111111-1111-1111-0000-000000000000",
		"41111111-1111-1111-0000-000000000000x",
		"aaaaaaaa-aaaa-aaaa-aaaa-aaaa12345678-4111-1111-1111-111100000000",
	} {
		if !hasCardNumber(text) || !cardNumberInRuns(text) || NoneIn(text) || Mask(text) == text {
			t.Errorf("%q: hasCardNumber %v, cardNumberInRuns %v, NoneIn %v, Mask %q",
				text, hasCardNumber(text), cardNumberInRuns(text), NoneIn(text), Mask(text))
		}
	}
	agree := func(b []byte) {
		t.Helper()
		text := string(b)
		masked := string(maskCardNumbers([]byte(text)))
		if got := hasCardNumber(text); got != (masked != text) || hasCardNumber(b) != got {
			t.Fatalf("hasCardNumber(%q) = %v, but masking gives %q", text, got, masked)
		}
		if got := hasCardNumber(text); got && (!cardNumberInRuns(text) || !cardNumberInRuns(b)) {
			t.Fatalf("hasCardNumber(%q) = true, but cardNumberInRuns misses it", text)
		}
		if (NoneIn(text) || NoneIn(b)) && Mask(text) != text {
			t.Fatalf("NoneIn(%q) = true, but Mask gives %q", text, Mask(text))
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789 -x^=D;%B?"
	for range 200000 {
		agree(randomDigitText(r, 1, 48, 4, alphabet))
	}
	// Texts of UUIDs (of digits, or of hex), their pieces, letters and dashes: where
	// a UUID stands alone depends on what is beside it.
	for range 200000 {
		agree(randomUUIDText(r))
	}
}

// randomUUIDText joins one to four pieces: a UUID of digits or of hex digits, a
// piece of one, a letter, a dash.
func randomUUIDText(r *rand.Rand) []byte {
	var b []byte
	for range 1 + r.IntN(4) {
		switch r.IntN(4) {
		case 0:
			b = append(b, randomUUID(r)...)
		case 1:
			from := r.IntN(uuidLength)
			b = append(b, randomUUID(r)[from:from+r.IntN(uuidLength-from)+1]...)
		case 2:
			b = append(b, "aZ"[r.IntN(2)])
		default:
			b = append(b, '-')
		}
	}
	return b
}

// randomUUID is a UUID's text of random decimal digits, or of random hex digits.
func randomUUID(r *rand.Rand) []byte {
	digits := "0123456789"
	if r.IntN(2) == 0 {
		digits = "0123456789abcdef"
	}
	uuid := make([]byte, uuidLength)
	for i := range uuid {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			uuid[i] = '-'
		} else {
			uuid[i] = digits[r.IntN(len(digits))]
		}
	}
	return uuid
}

// appendNormalizedKey lowers an ASCII name byte by byte and must agree with
// normalizeKey there; any other name it hands to normalizeKey, so for those the
// test names the key each must come to (some runes lower to ASCII letters).
func TestAppendNormalizedKeyAgreesWithNormalizeKey(t *testing.T) {
	for _, name := range []string{"", "cvv", "CVV", "Security-Code", "pin_block",
		"card.Number", "a1-B2_c3", strings.Repeat("Ab_", 40)} {
		if got, want := string(appendNormalizedKey(nil, []byte(name))), normalizeKey(name); got != want {
			t.Errorf("appendNormalizedKey(%q) = %q, normalizeKey: %q", name, got, want)
		}
	}
	for name, want := range map[string]string{
		"PİN": "pin", "\u212Aey": "key", "Kelvin\u212A": "kelvink", "ÀÉ_x": "x", "\xff\xfeCVV": "cvv",
	} {
		if got := string(appendNormalizedKey(nil, []byte(name))); got != want {
			t.Errorf("appendNormalizedKey(%q) = %q, want %q", name, got, want)
		}
	}
}

// BenchmarkMaskCardData masks texts of the hot path: a request path with one of the
// sandbox's ids, a short body without card data, a body with a card number.
func BenchmarkMaskCardData(b *testing.B) {
	for _, in := range []struct{ name, text string }{
		{"id path", "/transactions/TRN_CapturedSale000000000000000001/adjustment"},
		{"short digit runs", `{"amount":"100","currency":"USD","reference":"r-1"}`},
		{"card number", `{"card":{"number":"4263970000005262","expiry_month":"12"}}`},
		{"transaction answer", transactionAnswer},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				Mask(in.text)
			}
		})
	}
}

// transactionAnswer is a transaction as the API answers it, as the journal keeps it.
const transactionAnswer = `{"id":"TRN_RRK68IpQeVf8ikV39kKlyYE5S1Vnwn","time_created":"2026-11-25T22:30:22.493Z","type":"SALE","status":"CAPTURED","channel":"CP","capture_mode":"AUTO","amount":"1000","currency":"USD","country":"US","merchant_id":"MER_00000000000000000000000000000001","merchant_name":"Sandbox Merchant One","account_id":"TRA_00000000000000000000000000000001","account_name":"transaction_processing","batch_id":"BAT_1000001","payment_method":{"result":"00","message":"SUCCESS","entry_mode":"CHIP","card":{"brand":"VISA","masked_number_last4":"XXXXXXXXXXXX0016","authcode":"UlLVHw","brand_reference":"ODO0ZvTmwjMJLj6","brand_time_created":"2026-11-25T22:30:22.493Z","tag_response":"8A023030"}},"action":{"id":"ACT_eyj2S13hacpneoyVxZXu8Rnr8AdoMJ","type":"SALE","time_created":"2026-11-25T22:30:22.493Z","result_code":"SUCCESS","app_id":"SandboxPartnerAppId0000000000001","app_name":"sandbox_partner"}}`

// BenchmarkMaskCardDataJSON masks request bodies as the journal does: an adjustment,
// an access token request, a body with a card.
func BenchmarkMaskCardDataJSON(b *testing.B) {
	for _, in := range []struct{ name, body string }{
		{"adjustment", `{"gratuity_amount":"150"}`},
		{"accesstoken", `{"app_id":"P3LRVjtGRGxWQQJDE345mSkEh2KfdAyg","nonce":"2026-11-24T01:02:03.456Z","secret":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","grant_type":"client_credentials"}`},
		{"card", `{"account_name":"transaction_processing","amount":"1000","currency":"USD","payment_method":{"entry_mode":"ECOM","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"29","cvv":"123"}}}`},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			raw := []byte(in.body)
			for range b.N {
				MaskJSON(raw)
			}
		})
	}
}

// randomDigitText returns minLen to minLen+spread-1 bytes, mostly digits, with one byte
// in oneIn (on average) drawn from alphabet instead.
func randomDigitText(r *rand.Rand, minLen, spread, oneIn int, alphabet string) []byte {
	b := make([]byte, minLen+r.IntN(spread))
	for i := range b {
		if r.IntN(oneIn) == 0 {
			b[i] = alphabet[r.IntN(len(alphabet))]
		} else {
			b[i] = '0' + byte(r.IntN(10))
		}
	}
	return b
}

// FuzzMask writes a Luhn-valid card number of 12 to 19 digits in any of the
// forms a person or a program might (any decimal digits, separators of any kind and
// number between any digits, inside longer digit runs, between arbitrary text) and
// checks that neither the free-text nor the body masking lets it through: with the
// separators taken out and every digit read as ASCII, the number is nowhere in what
// they return. Run it for longer with
//
//	go test -run '^$' -fuzz FuzzMask -fuzztime 5m ./sandbox/carddata/
func FuzzMask(f *testing.F) {
	f.Add("ref ", " ok", uint64(4263970000005262), uint8(16), uint8(0), " ")
	f.Add("", "", uint64(3530111333300000), uint8(16), uint8(1), "\u00a0")
	f.Add("00", "1229", uint64(5425233430109903), uint8(19), uint8(2), "-")
	f.Add("5A08", "5F24", uint64(4222222222222), uint8(13), uint8(3), "._/")
	f.Add(`{"reference":"`, `"}`, uint64(371449635398431), uint8(15), uint8(0), "\u200b\u3000")
	f.Fuzz(func(t *testing.T, prefix, suffix string, seed uint64, length, script uint8, seps string) {
		pan := luhnNumber(seed, 12+int(length)%8)
		text := prefix + writeCardNumber(pan, seed, script, seps) + suffix
		for name, masked := range map[string]string{
			"Mask":     Mask(text),
			"MaskJSON": string(maskJSON([]byte(text), false)),
		} {
			// A UUID is an id whatever digits it holds (see uuidAt).
			if strings.Contains(withoutSeparators(uuids.ReplaceAllString(masked, "")), pan) {
				t.Fatalf("%s(%q) = %q: %s in clear", name, text, masked, pan)
			}
		}
	})
}

var uuids = regexp.MustCompile(`[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}`)

// luhnNumber makes a card number of n digits from seed: not starting with 0, its last
// digit the Luhn check digit.
func luhnNumber(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	d := make([]byte, n)
	d[0] = '1' + byte(r.IntN(9))
	for i := 1; i < n-1; i++ {
		d[i] = '0' + byte(r.IntN(10))
	}
	for c := byte('0'); c <= '9'; c++ {
		if d[n-1] = c; luhnOK(string(d)) {
			break
		}
	}
	return string(d)
}

func luhnOK(s string) bool {
	sum := 0
	for i := range len(s) {
		v := int(s[len(s)-1-i] - '0')
		if i%2 == 1 {
			if v *= 2; v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return sum%10 == 0
}

// writeCardNumber writes pan in one of the digit scripts, with separators drawn from
// seps (those that are no separator replaced by a space) between groups whose sizes
// come from seed.
func writeCardNumber(pan string, seed uint64, script uint8, seps string) string {
	zeros := []rune{'0', '０', '٠', '०', '𝟎'}
	zero := zeros[int(script)%len(zeros)]
	var sepRunes []rune
	for _, r := range seps {
		if !isCardSeparator(r) {
			r = ' '
		}
		sepRunes = append(sepRunes, r)
	}
	r := rand.New(rand.NewPCG(seed, uint64(script)))
	var b strings.Builder
	for i, c := range pan {
		if i > 0 && len(sepRunes) > 0 && r.IntN(3) == 0 {
			for range 1 + r.IntN(3) {
				b.WriteRune(sepRunes[r.IntN(len(sepRunes))])
			}
		}
		b.WriteRune(zero + (c - '0'))
	}
	return b.String()
}

// withoutSeparators reads s with every digit as ASCII and every separator dropped.
func withoutSeparators(s string) string {
	var b strings.Builder
	for _, r := range s {
		if v, ok := digitValue(r); ok {
			b.WriteByte('0' + byte(v))
		} else if !isCardSeparator(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// A name is refused for card data exactly when it holds a card number: a run of
// digits that only looks like track data (a 'D' or '=' after twelve digits, no card
// number) is a name like any other.
func TestHoldsCardData(t *testing.T) {
	for name, want := range map[string]bool{
		"run-000000000000d":       false,
		"a.123456789012D":         false,
		"x123456789012=1":         false,
		"nightly-1":               false,
		"before-4242424242424242": true,
		"4263970000005262":        true,
		"4263-9700-0000-5262":     true,
	} {
		if got := HoldsCardData(name); got != want {
			t.Errorf("HoldsCardData(%q) = %v, want %v", name, got, want)
		}
	}
}

// A key holding card data is kept as its hash, never in clear and never masked:
// keys that only look like card data (a millisecond timestamp, a date and a counter)
// must stay apart; a key without any is kept as sent.
func TestKeyWithout(t *testing.T) {
	for key, want := range map[string]string{
		"order-2024-12-05-0001":                "order-2024-12-05-0001",
		"0b1c9a52-0e4d-4b8e-9d43-2f1a6c1e7b10": "0b1c9a52-0e4d-4b8e-9d43-2f1a6c1e7b10",
	} {
		if got := KeyWithout(key); got != want {
			t.Errorf("KeyWithout(%q) = %q, want %q", key, got, want)
		}
	}
	for _, key := range []string{"4263970000005262", "retry-4263 9700 0000 5262"} {
		if got := KeyWithout(key); !strings.HasPrefix(got, "sha256:") || strings.Contains(got, "5262") {
			t.Errorf("KeyWithout(%q) = %q, want its hash", key, got)
		}
	}
	// Keys whose digits free text reads as a card number stay apart: none is kept as
	// another is.
	seen, looksLikeCard := map[string]string{}, 0
	for n := range 20000 {
		for _, key := range []string{"1765083654-1-" + strconv.Itoa(10000+n), strconv.Itoa(1765083654000 + 7*n), "20241205" + strconv.Itoa(1000+n%9000)} {
			if !NoneIn(key) {
				looksLikeCard++
			}
			stored := KeyWithout(key)
			if other, ok := seen[stored]; ok && other != key {
				t.Fatalf("keys %q and %q are both kept as %q", other, key, stored)
			}
			seen[stored] = key
		}
	}
	if looksLikeCard == 0 {
		t.Fatal("no key looked like card data: the test checks nothing")
	}
}

// A body whose members the masker can tell apart is readable; XML or a multipart
// body, where a CVV is a few digits like any others, is not.
func TestReadable(t *testing.T) {
	for body, want := range map[string]bool{
		`{"card":{"cvv":"123"}}`: true,
		` [1,2`:                  true,
		`null`:                   true,
		`pin=1&card[cvv]=2`:      true,
		"a=1&cvv=123\n":          true,
		`1 cvv 123`:              false,
		`"cvv" 123`:              false,
		``:                       true,
		`<request><card><cvn><number>5813</number></cvn></card></request>`:         false,
		"--x\r\nContent-Disposition: form-data; name=\"cvv\"\r\n\r\n2468\r\n--x--": false,
		`cvv 123`: false,
	} {
		if got := Readable([]byte(body)); got != want {
			t.Errorf("Readable(%q) = %v, want %v", body, got, want)
		}
	}
}

// A cut body loses its last value, back to the delimiter before it, however the
// digits it may hold are written.
func TestWithoutCutValue(t *testing.T) {
	for cut, want := range map[string]string{
		`{"a":"x","n":"4525 5265 27`:          `{"a":"x","n":"`,
		`{"n":"４５２５５２６５２７０００`:                 `{"n":"`,
		"description=4525+5265+2700+00":       "description=",
		`{"note":"a long text cut shor`:       `{"note":"a long text cut shor`,
		"description=4525%205265%202700%2":    "description=",
		`{"n":"4525\u00a05265\u00a02700\u00a`: `{"n":"`,
		`{"n":"４５２５` + "\xef\xbc":             `{"n":"`,
	} {
		if got := string(WithoutCutValue([]byte(cut))); got != want {
			t.Errorf("WithoutCutValue(%q) = %q, want %q", cut, got, want)
		}
	}
}

// A track's card number is read masked, however the track is written.
func TestTrackNumbers(t *testing.T) {
	text := `{"t1":"%B4012002000060016^VI TEST CREDIT^2512101?","t2":";5473500000000014=2512101?","t3":"%B4325 3263 2700 0005^DOE/JOHN^3012101?"}`
	if got, want := fmt.Sprint(TrackNumbers(text)), "[401200******0016 547350******0014 432532******0005]"; got != want {
		t.Errorf("TrackNumbers: %s, want %s", got, want)
	}
}
