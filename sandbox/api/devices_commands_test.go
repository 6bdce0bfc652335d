package api_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/png"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// The simulated terminal carries out every UPA command an official SDK sends over
// Meet in the Cloud, answered as the SDKs' parsers read it; the host's refusals
// complete DECLINED with a cmdResult those parsers do not throw on.

// micOriginal makes, on the account's terminal, the transaction a chained command
// acts on: a preauthorization for a completion or its deletion, a sale otherwise.
func micOriginal(env *sandboxEnv, tok, command string) string {
	env.T.Helper()
	kind := "Sale"
	if command == "AuthCompletion" || command == "DeletePreAuth" {
		kind = "PreAuth"
	}
	return apitest.Dig(env.MIC(tok, kind, `{"transaction":{"baseAmount":"10.00"}}`), "response.data.host.referenceNumber").(string)
}

// micData is the smallest request data each command needs, as the SDKs send it;
// original is the transaction a chained command names.
func micData(command, original string) string {
	switch command {
	case "Sale", "PreAuth", "ForceSale", "MailOrder", "ProcessCardTransaction":
		return `{"transaction":{"baseAmount":"10.00"}}`
	case "Refund":
		return `{"transaction":{"totalAmount":"5.00"}}`
	case "TipAdjust":
		return `{"transaction":{"tipAmount":"1.00","referenceNumber":"` + original + `"}}`
	case "AuthCompletion", "Void", "Reversal", "DeletePreAuth", "UpdateTaxInfo", "UpdateLodgingDetails":
		return `{"transaction":{"referenceNumber":"` + original + `"}}`
	}
	return ""
}

func chainedCommand(command string) bool {
	return strings.Contains(micData(command, "{original}"), "{original}")
}

// Every command of the SDKs' UpaMessageId enums completes on a terminal in COMPLETE
// mode, cmdResult Success, its name and requestId echoed: .NET UpaMicTests.cs Reboot
// ("COMPLETE", "00"), PHP UpaMicTests.php testReboot, testRestart, testReturnToIdle,
// testClearDataLake, testSetTimeZone, testPrint, testDisplayMessage, testLogon.
func TestDeviceEveryCommandCompletes(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	for _, command := range sandbox.UPACommands() {
		original := ""
		if chainedCommand(command) {
			original = micOriginal(env, tok, command)
		}
		d := env.MIC(tok, command, micData(command, original))
		if d["status"] != "COMPLETE" || apitest.Dig(d, "action.result_code") != "SUCCESS" || apitest.Dig(d, "response.cmdResult.result") != "Success" ||
			apitest.Dig(d, "response.response") != command || apitest.Dig(d, "response.requestId") != "10001" || apitest.Dig(d, "response.cmdResult.errorCode") != nil {
			t.Errorf("%s: %v", command, d)
		}
		if !strings.HasPrefix(d["id"].(string), "DRQ_") {
			t.Errorf("%s: id %v", command, d["id"])
		}
	}
}

// .NET UpaMicTests.cs CreditAuthCompletion, CreditDeletePreAuth and
// CreditCapture_RandomId expect the host's refusal as a completed command the SDK
// parses: DeviceResponseText DECLINED, ResponseText ERROR (host.responseText). The
// Java SDK needs cmdResult.errorCode on such an answer; none of the three SDKs that
// parse cmdResult may see Failed, which they throw on.
func TestDeviceHostRefusals(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	dotnet := func(command, transaction string) map[string]any {
		t.Helper()
		// UpaMicInterface.cs: the envelope; UpaController.cs: EcrId "1", the transaction.
		body := `{"account_name":"transaction_processing","channel":"CP","country":"US","currency":"USD","reference":"30001",` +
			`"request":{"message":"MSG","data":{"command":"` + command + `","EcrId":"1","requestId":"30001","data":{"transaction":` + transaction + `}}},` +
			`"notifications":{"status_url":"https://example.com/notify"}}`
		r := env.Do("POST", "/devices", apitest.APIHeader(tok), body)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", command, r.Status, r.Body)
		}
		return r.JSON(t)
	}
	refused := func(name string, d map[string]any, code, message string) {
		t.Helper()
		want := map[string]any{
			"status": "DECLINED", "action.result_code": "ERROR", "response.cmdResult.result": "Success",
			"response.cmdResult.errorCode": code, "response.cmdResult.errorMessage": message,
			"response.data.host.responseCode": code, "response.data.host.responseText": "ERROR",
			"response.data.host.gatewayResponseMessage": message, "response.requestId": "30001", "response.EcrId": "1",
		}
		for path, v := range want {
			if got := apitest.Dig(d, path); got != v {
				t.Errorf("%s: %s = %v, want %v", name, path, got, v)
			}
		}
	}
	// On a fresh terminal, 0001 is no transaction of its.
	refused("CreditAuthCompletion, nothing numbered 0001", dotnet("AuthCompletion", `{"amount":"10.00","referenceNumber":"0001"}`),
		"ERR020", "TRANSACTION NOT FOUND 0001")
	refused("CreditCapture_RandomId", dotnet("AuthCompletion", `{"amount":"10.00","referenceNumber":"4c9a0f1e-7b2d-4e8a-9f3c-2d1e0b9a8c7f"}`),
		"ERR020", "TRANSACTION NOT FOUND 4c9a0f1e-7b2d-4e8a-9f3c-2d1e0b9a8c7f")
	// Once 0001 is a captured sale, it is no authorization to complete or delete.
	sale := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	if apitest.Dig(sale, "response.data.host.tranNo") != "0001" {
		t.Fatalf("the sale: %v", sale)
	}
	refused("CreditAuthCompletion", dotnet("AuthCompletion", `{"amount":"10.00","referenceNumber":"0001"}`),
		"40290", "Cannot PROCESS Capture over a transaction that does not have a status of PREAUTHORIZED.")
	refused("CreditDeletePreAuth", dotnet("DeletePreAuth", `{"referenceNumber":"0001"}`),
		"40290", "Cannot PROCESS Reversal over a transaction that does not have a status of PREAUTHORIZED.")
	trn := apitest.Dig(sale, "response.data.host.referenceNumber").(string)
	if got := env.Do("GET", "/transactions/"+trn, apitest.APIHeader(tok), "").JSON(t)["status"]; got != "CAPTURED" {
		t.Errorf("the refused commands changed the sale: %v", got)
	}
}

// A DeletePreAuth of an authorization reverses it (.NET UpaMicTests.cs
// CreditDeletePreAuth, on an authorization of the terminal's).
func TestDeviceDeletePreAuth(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	auth := env.MIC(tok, "PreAuth", `{"transaction":{"amount":"10.00"}}`)
	del := env.MIC(tok, "DeletePreAuth", `{"transaction":{"referenceNumber":"`+apitest.Dig(auth, "response.data.host.tranNo").(string)+`"}}`)
	trn := apitest.Dig(auth, "response.data.host.referenceNumber").(string)
	if del["status"] != "COMPLETE" || apitest.Dig(del, "response.data.host.referenceNumber") != trn {
		t.Errorf("delete: %v", del)
	}
	if got := env.Do("GET", "/transactions/"+trn, apitest.APIHeader(tok), "").JSON(t)["status"]; got != "REVERSED" {
		t.Errorf("the deleted authorization: %v", got)
	}
}

// A card the issuer declines completes the command DECLINED the same way, the
// issuer's code as errorCode and host.responseCode; what the terminal could not do
// stays cmdResult Failed: the customer cancelling, and (PHP UpaMicTests.php
// testCreditSaleWithTippableAmountGreaterThanBaseAmount) a tippable amount over the
// base amount, TIP005, while one within it is a sale (testCreditSaleWithTippableAmount).
func TestDeviceDeclinesAndFailures(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice, `{"mode":"INITIATED"}`)
	id := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)["id"].(string)
	declined := env.MustAdmin("POST", "/_sandbox/device-requests/"+id+"/present", `{"card":"expired_swipe"}`)
	if declined["status"] != "DECLINED" || apitest.Dig(declined, "response.cmdResult.result") != "Success" ||
		apitest.Dig(declined, "response.cmdResult.errorMessage") != "DECLINED" || apitest.Dig(declined, "response.data.host.responseText") != "DECLINED" ||
		apitest.Dig(declined, "response.cmdResult.errorCode") != apitest.Dig(declined, "response.data.host.responseCode") {
		t.Errorf("an issuer decline: %v", declined)
	}
	// The longest test card name, a chip read with the wrong PIN: the issuer's 55.
	id = env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)["id"].(string)
	pin := env.MustAdmin("POST", "/_sandbox/device-requests/"+id+"/present", `{"card":"visa_chip_pin_decline"}`)
	if pin["status"] != "DECLINED" || apitest.Dig(pin, "response.data.host.responseCode") != "55" {
		t.Errorf("the wrong PIN: %v", pin)
	}
	env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	cancelled := env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice+"/cancel", "")
	if cancelled["status"] != "DECLINED" || apitest.Dig(cancelled, "response.cmdResult.result") != "Failed" || apitest.Dig(cancelled, "response.cmdResult.errorCode") != "ERR018" {
		t.Errorf("the customer cancels: %v", cancelled)
	}
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice, `{"mode":"COMPLETE"}`)
	// PHP: sprintf('%08.2f') amounts.
	over := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"0010.00","tippableAmount":"00015.00"}}`)
	if over["status"] != "DECLINED" || apitest.Dig(over, "response.cmdResult.result") != "Failed" || apitest.Dig(over, "response.cmdResult.errorCode") != "TIP005" ||
		apitest.Dig(over, "response.cmdResult.errorMessage") != "Tippable Amount is cannot be greater than Base Amount" {
		t.Errorf("tippable amount over the base: %v", over)
	}
	within := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"0010.00","tippableAmount":"00001.00"}}`)
	if within["status"] != "COMPLETE" || apitest.Dig(within, "response.data.host.totalAmount") != "10.00" {
		t.Errorf("tippable amount within the base: %v", within)
	}
}

// What the commands that move no money report, as the SDKs' parsers read it.
func TestDeviceTerminalReports(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	expect := func(name string, d map[string]any, want map[string]any) {
		t.Helper()
		for path, v := range want {
			if got := apitest.Dig(d, path); fmt.Sprint(got) != fmt.Sprint(v) {
				t.Errorf("%s: %s = %v, want %v (%v)", name, path, got, v, d["response"])
			}
		}
	}
	// PHP testGetAppInfo: deviceSerialNum not null.
	expect("GetAppInfo", env.MIC(tok, "GetAppInfo", ""), map[string]any{"response.data.deviceSerialNum": queueDevice, "response.data.appVersion": "1.0.0-sandbox"})
	// PHP testSetTimeZone, then testGetParam; .NET GetParams reads every data member as a parameter.
	env.MIC(tok, "SetTimeZone", `{"params":{"timeZone":"America/Los_Angeles"}}`)
	params := env.MIC(tok, "GetParam", `{"params":{"configuration":["TimeZone","TerminalLanguage","Unknown"]}}`)
	if data, _ := apitest.Dig(params, "response.data").(map[string]any); len(data) != 3 || data["TimeZone"] != "America/Los_Angeles" || data["TerminalLanguage"] != "en" || data["Unknown"] != "" {
		t.Errorf("GetParam: %v", params["response"])
	}
	// PHP testSetDebugLevel then testGetDebugLevel: 'PACKETS|DATA', which it reads back
	// from the levels' bits in binary.
	env.MIC(tok, "SetDebugLevel", `{"params":{"debugLevel":"PACKETS|DATA","logToConsole":"FILE"}}`)
	expect("GetDebugLevel", env.MIC(tok, "GetDebugLevel", ""), map[string]any{"response.data.debugLevel": "110000"})
	// PHP testGetDebugInfo: fileContents and length.
	info := env.MIC(tok, "GetDebugInfo", `{"params":{"logFile":"1"}}`)
	if contents, _ := apitest.Dig(info, "response.data.fileContents").(string); contents == "" || apitest.Dig(info, "response.data.length") != float64(len(contents)) {
		t.Errorf("GetDebugInfo: %v", info["response"])
	}
	// PHP testGetConfigContents: the config type asked for.
	expect("GetConfigContents", env.MIC(tok, "GetConfigContents", `{"params":{"configType":"ContactTerminalConfig"}}`),
		map[string]any{"response.data.configType": "ContactTerminalConfig"})
	// PHP testScanQR: scanData; testCommunicationCheck: gatewayResponseMessage Success.
	expect("Scan", env.MIC(tok, "Scan", `{"params":{"header":"SCAN","prompt1":"SCAN QR CODE"}}`), map[string]any{"response.data.scanData": "SANDBOX-SCAN"})
	expect("CommunicationCheck", env.MIC(tok, "CommunicationCheck", ""), map[string]any{"response.data.host.gatewayResponseMessage": "Success"})
	expect("GetBatteryPercentage", env.MIC(tok, "GetBatteryPercentage", ""), map[string]any{"response.cmdResult.BatteryLevel": 100})
	expect("GetEncryptionType", env.MIC(tok, "GetEncryptionType", ""), map[string]any{"response.data.dataEncryptionType": "TDES"})
	expect("PromptMenu", env.MIC(tok, "PromptMenu", `{"params":{"prompt1":"Pick","menu":[{"text":"A"}],"button1":{"color":"green","text":"OK"}}}`),
		map[string]any{"response.data.button": 1, "response.data.menuSelected": 1})
	// .NET SendSaf and GetSafReport, PHP's SAF report: SafDetails, empty (the sandbox stores nothing offline).
	for _, command := range []string{"SendSAF", "GetSAFReport", "DeleteSAF"} {
		if got, ok := apitest.Dig(env.MIC(tok, command, ""), "response.data.SafDetails").([]any); !ok || len(got) != 0 {
			t.Errorf("%s: SafDetails %v", command, got)
		}
	}
	// PHP testGetSignature: signatureData, base64 of an image getimagesizefromstring reads.
	sig := apitest.Dig(env.MIC(tok, "GetSignature", `{"params":{"prompt1":"Please sign","displayOption":"1"}}`), "response.data.signatureData")
	raw, err := base64.StdEncoding.DecodeString(fmt.Sprint(sig))
	if err != nil {
		t.Fatalf("signatureData %v: %v", sig, err)
	}
	if img, err := png.Decode(bytes.NewReader(raw)); err != nil || img.Bounds().Dx() == 0 {
		t.Errorf("the signature is no image: %v", err)
	}
}

// The reports on the terminal's transactions and batches: .NET UpaMicTests.cs
// GetOpenTabDetails and PHP testGetOpenTabDetails (OpenTabDetails, openTabDetails),
// PHP testFindAvailableBatches (batchesAvail), testGetBatchDetails (batchRecord with
// its transactions), testGetBatchReport; GetLastEOD after an end of day.
func TestDeviceBatchAndTabReports(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	tabs := env.MIC(tok, "GetOpenTabDetails", "")
	for _, key := range []string{"OpenTabDetails", "openTabDetails"} {
		if got, ok := apitest.Dig(tabs, "response.data."+key).([]any); !ok || len(got) != 0 {
			t.Errorf("no open tab: %s %v", key, got)
		}
	}
	auth := env.MIC(tok, "PreAuth", `{"transaction":{"amount":"20.00"}}`)
	authTrn := apitest.Dig(auth, "response.data.host.referenceNumber")
	sale := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00","tipAmount":"1.00"}}`)
	saleTrn := apitest.Dig(sale, "response.data.host.referenceNumber")
	tabs = env.MIC(tok, "GetOpenTabDetails", "")
	for _, key := range []string{"OpenTabDetails", "openTabDetails"} {
		list, _ := apitest.Dig(tabs, "response.data."+key).([]any)
		if len(list) != 1 {
			t.Fatalf("%s: %v", key, tabs["response"])
		}
		tab := list[0].(map[string]any)
		if tab["referenceNumber"] != authTrn || tab["authorizedAmount"] != "20.00" || tab["cardType"] != "VISA" || tab["maskedPan"] != "401200******0016" {
			t.Errorf("%s: %v", key, tab)
		}
	}
	batches := env.MIC(tok, "AvailableBatches", "")
	list, _ := apitest.Dig(batches, "response.data.batchesAvail").([]any)
	if len(list) != 1 || apitest.Dig(list[0].(map[string]any), "batchId") != apitest.Dig(sale, "response.data.host.batchId") {
		t.Errorf("AvailableBatches: %v", batches["response"])
	}
	details := env.MIC(tok, "GetBatchDetails", `{"params":{"reportOutput":"Print|ReturnData"}}`)
	records, _ := apitest.Dig(details, "response.data.batchRecord.batchDetailRecords").([]any)
	if len(records) != 1 || apitest.Dig(details, "response.data.batchRecord.openTnxId") != saleTrn {
		t.Fatalf("GetBatchDetails: %v", details["response"])
	}
	for path, v := range map[string]any{
		"referenceNumber": saleTrn, "transactionType": "Sale", "transactionStatus": "CAPTURED", "requestedAmount": "10.00",
		"authorizedAmount": "11.00", "tipAmount": "1.00", "cardType": "VISA", "maskedPan": "401200******0016",
		"cardAcquisition": "Insert", "responseCode": "00", "responseText": "APPROVAL",
	} {
		if got := apitest.Dig(records[0].(map[string]any), path); got != v {
			t.Errorf("GetBatchDetails record %s = %v, want %v", path, got, v)
		}
	}
	report := env.MIC(tok, "GetBatchReport", "")
	brands, _ := apitest.Dig(report, "response.data.batchRecord.batchTransactions").([]any)
	if len(brands) != 1 || apitest.Dig(brands[0].(map[string]any), "cardType") != "VISA" || apitest.Dig(brands[0].(map[string]any), "totalAmount") != "11.00" ||
		apitest.Dig(report, "response.data.batchRecord.batchDetailRecords") != nil {
		t.Errorf("GetBatchReport: %v", report["response"])
	}
	eod := env.MIC(tok, "EODProcessing", "")
	last := env.MIC(tok, "GetLastEOD", "")
	if apitest.Dig(last, "response.data.host.batchId") != apitest.Dig(eod, "response.data.host.batchId") || apitest.Dig(last, "response.data.batchRecord.batchStatus") != "CLOSED" {
		t.Errorf("GetLastEOD %v after end of day %v", last["response"], eod["response"])
	}
	// The closed batch is still there to find, and the open tab still open.
	list, _ = apitest.Dig(env.MIC(tok, "AvailableBatches", ""), "response.data.batchesAvail").([]any)
	if len(list) != 1 {
		t.Errorf("AvailableBatches after end of day: %v", list)
	}
}

// The commands that read a card without moving money, and those that note something
// about an original: a balance inquiry and a card transaction started answer the card
// read, masked; a tokenization is a verification; UpdateTaxInfo names the original.
func TestDeviceCardReadsAndUpdates(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	balance := env.MIC(tok, "BalanceInquiry", "")
	if apitest.Dig(balance, "response.data.payment.maskedPan") != "401200******0016" || apitest.Dig(balance, "response.data.host.referenceNumber") != nil {
		t.Errorf("BalanceInquiry: %v", balance["response"])
	}
	if got := apitest.Dig(env.MIC(tok, "StartCardTransaction", ""), "response.data.acquisitionType"); got != "Insert" {
		t.Errorf("StartCardTransaction: acquisitionType %v", got)
	}
	token := env.MIC(tok, "Tokenize", "")
	trn := apitest.Dig(token, "response.data.host.referenceNumber").(string)
	if got := env.Do("GET", "/transactions/"+trn, apitest.APIHeader(tok), "").JSON(t)["status"]; got != "VERIFIED" {
		t.Errorf("Tokenize: %v", got)
	}
	sale := micOriginal(env, tok, "Sale")
	if got := apitest.Dig(env.MIC(tok, "UpdateTaxInfo", `{"transaction":{"referenceNumber":"`+sale+`","taxAmount":"1.00"}}`), "response.data.host.referenceNumber"); got != sale {
		t.Errorf("UpdateTaxInfo: %v", got)
	}
}

// Every request member an SDK writes is accepted (none is 40043 or 40213 any more):
// .NET StartCardTransaction's params and processingIndicators, its lodging and host
// data, EnterPIN's terminal and account number, a menu of button objects, SetParam's
// password; PHP's full-params sale (testCreditSaleFullParams) with its clerk and
// tippable amount.
func TestDeviceSDKRequestMembers(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	for command, data := range map[string]string{
		"StartCardTransaction": `{"params":{"timeOut":"30","acquisitionTypes":"Contact|Contactless","header":"Pay","displayTotalAmount":"Y","PromptForManualEntryPassword":0,"brandIcon1":1,"brandIcon2":2},` +
			`"processingIndicators":{"quickChip":"Y","checkLuhn":"Y","securityCode":"N","cardTypeFilter":"VISA|MC"},` +
			`"transaction":{"totalAmount":"10.00","cashBackAmount":"0.00","tranDate":"06252026","tranTime":"09:15:00","transactionType":"Sale"}}`,
		"Sale": `{"params":{"clerkId":"1234","tokenRequest":"1","cardOnFileIndicator":"C","cardBrandTransId":"transId","directMktInvoiceNbr":"123A10",` +
			`"directMktShipMonth":"06","directMktShipDay":"25","merchantDecision":"Approve","languageCode":"en"},` +
			`"transaction":{"baseAmount":"0005.00","taxAmount":"002.18","tipAmount":"012.56","cashBackAmount":"000.10","invoiceNbr":"123A10",` +
			`"taxIndicator":"2","processCPC":"1","confirmAmount":"Y","tippableAmount":"00005.00","clerkId":"1234","HSAFSATokenTran":"1"},` +
			`"lodging":{"folioNumber":"1","stayDuration":2,"extraChargeTypes":[1,2],"extraChargeTotal":"1.00"},` +
			`"host":{"hostDecision":"Approve","issuerScripts":"00","issuerAuthData":"00"}}`,
		"EnterPIN":       `{"params":{"prompt1":"Enter PIN","prompt2":"","prompt3":""},"terminal":{"canBypass":"Y"},"transaction":{"accountNumber":"` + panVisa + `"}}`,
		"PromptMenu":     `{"params":{"prompt1":"Choose","timeout":"30","button1":{"color":"green","text":"OK"},"menu":[{"text":"One"},{"text":"Two"}]}}`,
		"SetParam":       `{"password":"993883","promptIfRestartRequired":1,"params":{"timeZone":"America/New_York"}}`,
		"GeneralEntry":   `{"params":{"prompt1":"Zip","button1":"OK","button2":"Cancel","timeOut":"30","entryFormat":"Numeric","minLen":"5","maxLen":"5","alignment":"Center"}}`,
		"RegisterPOS":    `{"params":{"appName":"com.example.pos","launchOrder":"1","remove":"false","silent":"True"}}`,
		"SaveConfigFile": `{"params":{"configType":"ContactTerminalConfig","fileContents":"x","length":1,"reinitialize":"Y"}}`,
		"ManageToken":    `{"params":{"tokenValue":"tok_1","expiryMonth":"12","expiryYear":"30"}}`,
	} {
		r := env.Do("POST", "/devices", apitest.APIHeader(tok), apitest.MICBody(command, data))
		if r.Status != 200 || apitest.Dig(r.JSON(t), "response.cmdResult.result") != "Success" {
			t.Errorf("%s: %d %s", command, r.Status, r.Body)
		}
	}
	// A member no SDK writes is still refused, naming it.
	r := env.Do("POST", "/devices", apitest.APIHeader(tok), apitest.MICBody("Ping", `{"params":{"teleport":"1"}}`))
	if got := r.GPError(t); got != apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: request.data.data.params.teleport") {
		t.Errorf("an unknown member: %+v", got)
	}
	// A line item is text, kept as sent like a reference, but the sandbox's own views
	// show no card number in it; EnterPIN's account number is not kept at all.
	line := env.MIC(tok, "LineItemDisplay", `{"params":{"lineItemLeft":"card `+panVisa+`","lineItemRight":"1.00"}}`)
	env.mustHoldNone(t, []string{"/_sandbox/terminals", "/_sandbox/device-requests/" + line["id"].(string)}, false, panVisa)
}
