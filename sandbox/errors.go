package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Error is a GP API error: the three fields every GP error body carries. It is built
// only by the constructors in this file, so the catalogue of sandbox/api/README.md §1
// lives in one place. Its HTTP status is the api package's business (statusOf there),
// decided by the error code.
type Error struct {
	Code        string `json:"error_code"`
	Detail      string `json:"detailed_error_code"`
	Description string `json:"detailed_error_description"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Code, e.Detail, e.Description)
}

// AsError reports whether err is (or wraps) a GP error and returns it.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func newError(code, detail, description string) *Error {
	return &Error{Code: code, Detail: detail, Description: description}
}

// Error codes of the GP catalogue.
const (
	CodeNotAuthenticated      = "NOT_AUTHENTICATED"
	CodeActionNotAuthorized   = "ACTION_NOT_AUTHORIZED"
	CodeMandatoryDataMissing  = "MANDATORY_DATA_MISSING"
	CodeInvalidRequestData    = "INVALID_REQUEST_DATA"
	CodeResourceNotFound      = "RESOURCE_NOT_FOUND"
	CodeDuplicateAction       = "DUPLICATE_ACTION"
	CodeInvalidAction         = "INVALID_ACTION"
	CodeSystemErrorDownstream = "SYSTEM_ERROR_DOWNSTREAM"
	CodeSystemError           = "SYSTEM_ERROR"
	CodeInvalidBatchAction    = "INVALID_BATCH_ACTION"
	CodeActionFailed          = "ACTION_FAILED"
	CodeConfigurationMissing  = "CONFIGURATION_DOES_NOT_EXIST"

	CodeInvalidTransactionAction = "INVALID_TRANSACTION_ACTION"
)

// InvalidToken: the bearer token is missing, unknown or malformed.
func InvalidToken() *Error {
	return newError(CodeNotAuthenticated, "40001", "Invalid access token")
}

// ExpiredToken: the token is known but its life is over.
func ExpiredToken() *Error {
	return newError(CodeNotAuthenticated, "40002", "Access token expired")
}

// UnknownApp: /accesstoken with an app_id the sandbox does not know.
func UnknownApp() *Error {
	return newError(CodeActionNotAuthorized, "40004", "App credentials not recognized")
}

// WrongSecret: /accesstoken with a secret that does not match the app key.
func WrongSecret() *Error {
	return newError(CodeActionNotAuthorized, "40004", "Credentials not recognized to create access token.")
}

// PermissionDenied: the token lacks the permission, or the app's live configuration
// does not enable the action.
func PermissionDenied() *Error {
	return newError(CodeActionNotAuthorized, "40212", "Permission not enabled to execute action")
}

// MissingFields: required fields are absent. list is rendered as given, e.g.
// "[amount or tag or gratuityAmount]" or "app_id".
func MissingFields(list string) *Error {
	return newError(CodeMandatoryDataMissing, "40005", "Request expects the following fields "+list)
}

// InvalidField: a field is present but its type, length, charset or value is wrong.
func InvalidField(field string) *Error {
	return newError(CodeInvalidRequestData, "40213", field+" contains unexpected data")
}

// InvalidFieldBecause is InvalidField saying why, for the sandbox's own checks [SB]:
// "tip contains unexpected data: 1001 is more than the base amount 1000".
func InvalidFieldBecause(field, why string) *Error {
	return newError(CodeInvalidRequestData, "40213", field+" contains unexpected data: "+why)
}

// UnknownScenario: a request names a scenario that is not loaded (header names the
// header). The description names it, and the loaded names when they are few enough to
// read, else where to list them. The name is the client's and is shown with any card
// number masked, clipped to the length a scenario name may have.
func UnknownScenario(header, name string, known []string) *Error {
	if len(name) > 100 {
		name = name[:100] + "..."
	}
	why := fmt.Sprintf("unknown scenario %q", carddata.Mask(name))
	switch {
	case len(known) == 0:
		why += "; no scenario is loaded"
	case len(known) <= 20:
		why += "; known: " + strings.Join(known, ", ")
	default:
		why += fmt.Sprintf("; %d are loaded, GET /_sandbox/scenarios lists them", len(known))
	}
	return InvalidFieldBecause(header, why)
}

// InvalidURLField: a field of the URL (path id) or a URL-valued field is malformed.
func InvalidURLField(field string) *Error {
	return newError(CodeInvalidRequestData, "40090",
		field+" value is invalid. Please check the format and data provided is correct.")
}

// InvalidSystemMID: a settlement filter system.mid that is no merchant id (GP's words,
// without the full stop of InvalidURLField: Java GpApiReportingTransactionsTest
// ReportFindSettlementTransactionsPaged_By_Invalid_SystemMid).
func InvalidSystemMID() *Error {
	return newError(CodeInvalidRequestData, "40090",
		"system.mid value is invalid. Please check the format and data provided is correct")
}

// InvalidSystemHierarchy: a settlement filter system.hierarchy not of GP's form
// 000-00-000-000-000 (Java GpApiReportingDepositsTest, Node ReportingDeposits.test).
func InvalidSystemHierarchy() *Error {
	return newError(CodeInvalidRequestData, "40105", "Invalid Value provided in the input field - system.hierarchy")
}

// UnexpectedFields: the body carries fields the operation does not know.
func UnexpectedFields(fields []string) *Error {
	return newError(CodeInvalidRequestData, "40043",
		"Request contains unexpected fields: "+strings.Join(fields, ", "))
}

// InvalidPermissions: /accesstoken asked for permissions the app does not hold.
func InvalidPermissions(names []string) *Error {
	return newError(CodeInvalidRequestData, "40119",
		"Invalid permissions [ "+strings.Join(names, ",")+" ] provided in the input field - permissions")
}

// NotFoundTransaction: unknown transaction, or one the caller may not see.
func NotFoundTransaction(id string) *Error {
	return newError(CodeResourceNotFound, "40008", "Transaction "+id+" not found at this location.")
}

// MerchantNotConfigured: unknown merchant, or one the app may not act for.
func MerchantNotConfigured(accountID, merchantID string) *Error {
	return newError(CodeInvalidRequestData, "40041",
		"Merchant configuration does not exist for the following combination: "+accountID+" , "+merchantID)
}

// Boarding's tuples, as the SDKs' onboarding and account tests show them [GP].

// DuplicateMerchantName: a merchant with that name was boarded already.
func DuplicateMerchantName() *Error {
	return newError(CodeInvalidRequestData, "40041", "Duplicate Merchant Name")
}

// RetrieveNotSupported: a merchant or account id that is none (a GUID, say).
func RetrieveNotSupported() *Error {
	return newError(CodeInvalidTransactionAction, "40042", "Retrieve information about this transaction is not supported")
}

// NotFoundAccount: an account id of the right form that names no account.
func NotFoundAccount(id string) *Error {
	return newError(CodeInvalidRequestData, "40041", "Account details does not exist for "+id)
}

// RequiredFieldMissing: a merchant edit with a status change reason alone.
func RequiredFieldMissing() *Error {
	return newError(CodeMandatoryDataMissing, "40241", "Required field is missing.")
}

// ExtraTags: a merchant edit with a status change reason and profile members.
func ExtraTags() *Error {
	return newError(CodeInvalidRequestData, "40268", "Bad Request. The request has extra tags which are not required.")
}

// DocumentFieldMissing: an upload without its format or function (GP's text starts
// with a space).
func DocumentFieldMissing(field string) *Error {
	return newError(CodeMandatoryDataMissing, "40251", " Request expects the following fields: "+field)
}

// LookupFieldMissing: an address lookup without its postal code or address lines.
func LookupFieldMissing(list string) *Error {
	return newError(CodeMandatoryDataMissing, "40251", "Request expects the following fields:"+list+".")
}

// NotFoundMerchant: the admin API names a merchant that does not exist.
func NotFoundMerchant(id string) *Error {
	return newError(CodeResourceNotFound, "40008", "Merchant "+id+" not found")
}

// DuplicateAction: the idempotency key already executed an action. status is empty
// for transactions and the order's status for orders. The catalogue's text, which a
// scenario scripting 40039 gets, knows no resource and so names none.
func DuplicateAction(resourceID, status string) *Error {
	desc := "Idempotency Key seen before"
	if resourceID != "" {
		desc += ": id=" + resourceID
	}
	if status != "" {
		desc += ", status=" + status
	}
	return newError(CodeDuplicateAction, "40039", desc)
}

// DuplicateTransaction: a payment that repeats an approved one of the same card,
// amount, currency and reference within the duplicate window, refused because a
// scenario asks so (the real API charges twice) [SB].
func DuplicateTransaction(firstID string) *Error {
	return newError(CodeDuplicateAction, "40039", "Duplicate transaction seen before: id="+firstID)
}

// NotAdjustableStatus: the transaction is neither CAPTURED nor PREAUTHORIZED.
func NotAdjustableStatus() *Error {
	return newError(CodeInvalidAction, "40290",
		"Cannot PROCESS Adjustment over a transaction that does not have a status of CAPTURED or PREAUTHORIZED.")
}

// BatchClosedFor: an operation that a transaction in a closed batch no longer takes,
// e.g. "Cannot PROCESS Reversal over a transaction that is in a closed batch." [SB].
func BatchClosedFor(op Operation) *Error {
	name := map[Operation]string{OpAdjustment: "Adjustment", OpReversal: "Reversal"}[op]
	return newError(CodeInvalidAction, "40290",
		"Cannot PROCESS "+name+" over a transaction that is in a closed batch.")
}

// InvalidTransition: an order cannot move from one status to the other [SB].
func InvalidTransition(from, to string) *Error {
	return newError(CodeInvalidAction, "40290",
		"Cannot change the status of an Order from "+from+" to "+to+".")
}

// NotFoundOrder: unknown order (admin API).
func NotFoundOrder(id string) *Error {
	return newError(CodeResourceNotFound, "40008", "Order "+id+" not found at this location.")
}

// NotFoundScenario: no loaded scenario has the name (admin API); the name, a client's
// text, is echoed masked.
func NotFoundScenario(name string) *Error {
	return newError(CodeResourceNotFound, "40008", "Scenario "+carddata.Mask(name)+" not found at this location.")
}

// InvalidSnapshotName: a snapshot name the sandbox cannot keep a file of (admin API)
// [SB].
func InvalidSnapshotName() *Error {
	return InvalidFieldBecause("name", "a snapshot name is 1 to 64 letters, digits, '_' or '-', not starting with '-' and holding no card number")
}

// NotFoundSnapshot: no snapshot has the name (admin API).
func NotFoundSnapshot(name string) *Error {
	return newError(CodeResourceNotFound, "40008", "Snapshot "+name+" not found at this location.")
}

// DamagedSnapshot: a snapshot whose file was cut, or its framing changed, since it was saved,
// first at offset; it is refused whole (admin API, --snapshot) [SB].
func DamagedSnapshot(name string, offset int64) *Error {
	return newError(CodeSystemError, "50000",
		fmt.Sprintf("Snapshot %s is damaged at byte %d and was not restored: delete it or save it again", name, offset))
}

// FixturesUnreadable: a reset found the fixture files it reseeds from in error
// (problem names the file, line and column); nothing was reset (admin API) [SB].
func FixturesUnreadable(problem string) *Error {
	return newError(CodeSystemError, "50000", "the fixtures do not load, so nothing was reset: "+carddata.Mask(problem))
}

// ForeignSnapshot: a file under a snapshot's name that the sandbox did not write;
// it is refused whole (admin API, --snapshot) [SB].
func ForeignSnapshot(name string) *Error {
	return newError(CodeSystemError, "50000",
		"Snapshot "+name+" is not a gp-sandbox snapshot and was not restored: delete it or save it again")
}

// UnreadableSnapshot: a snapshot's file that cannot be read as one (a folder under
// its name, a file the sandbox may not read); it is refused whole (admin API,
// --snapshot) [SB].
func UnreadableSnapshot(name, problem string) *Error {
	return newError(CodeSystemError, "50000",
		"Snapshot "+name+" cannot be read and was not restored: "+problem)
}

// UnwritableSnapshot: a snapshot that could not be saved, naming why (its name held
// by a folder, say); nothing was saved over the name.
func UnwritableSnapshot(name, problem string) *Error {
	return newError(CodeSystemError, "50000", "Snapshot "+name+" was not saved: "+problem)
}

// SnapshotExists: a snapshot is saved under a name already taken (admin API) [SB].
func SnapshotExists(name string) *Error {
	return newError(CodeDuplicateAction, "40039",
		"Snapshot "+name+" exists: send \"overwrite\":true to replace it")
}

// InvalidAdminToken: an admin call without the admin token, or with a wrong one.
func InvalidAdminToken() *Error {
	return newError(CodeNotAuthenticated, "40001", "Invalid admin token")
}

// CrossOriginAdmin: a browser page of another origin tried to change the sandbox through
// the admin API (a reset, the clock, seeded data) [SB].
func CrossOriginAdmin() *Error {
	return newError(CodeActionNotAuthorized, "40212",
		"Cross-origin request refused: the admin API changes state only for the sandbox's own pages and non-browser clients")
}

// ClockOutOfRange: the admin API asked the sandbox clock for a time outside the
// times it may show, from earliest to latest: GP's timestamps, less the longest time
// the sandbox counts ahead of its clock [SB].
func ClockOutOfRange(member string, earliest, latest time.Time) *Error {
	return InvalidFieldBecause(member, "the sandbox clock stays from "+FormatTime(earliest)+" to "+FormatTime(latest)+
		", so that every time it counts ahead (a token's expiry, an order's next step) is one GP's timestamps can show")
}

// HostNotAllowed: an open admin API was asked under a host name the sandbox does not
// serve it under, as a web page does after rebinding its own name to the sandbox's
// address [SB].
func HostNotAllowed(host string) *Error {
	return newError(CodeActionNotAuthorized, "40212",
		"Host "+host+" refused: without --admin-token the admin API answers only for loopback names, IP addresses and the names in --allowed-hosts (GPSANDBOX_ALLOWED_HOSTS); add it there if the sandbox is reached by that name")
}

// InvalidDocument: an admin body that does not validate; problems says where and why,
// e.g. "body:3:9: amount: want a quoted string of digits".
func InvalidDocument(problems string) *Error {
	return newError(CodeInvalidRequestData, "40213", problems)
}

// BodyUnexpected: the body is not JSON, or not a JSON object.
func BodyUnexpected() *Error {
	return newError(CodeInvalidRequestData, "40213", "Request body contains unexpected data")
}

// BodyTooLarge: the body exceeds the configured limit (the api sends it as 413, not
// the 400 of its error code).
func BodyTooLarge(limit int64) *Error {
	return newError(CodeInvalidRequestData, "40213",
		fmt.Sprintf("Request body is larger than %d bytes", limit))
}

// UnknownPath: no route has this path.
func UnknownPath(path string) *Error {
	return newError(CodeResourceNotFound, "40118", "Resource "+path+" not found")
}

// EmptyPathSegment: a path with an empty segment inside it, an id left out
// (/disputes//documents/DOC_…), which GP's gateway answers before any route with a
// tuple of its own, sent as 404 [GP] (PHP ReportingDisputesTest
// testFindDocumentAssociatedWithDispute_EmptyDisputeId).
func EmptyPathSegment() *Error {
	return newError("Invalid Resource.", "404", "Unproccesable resource found.")
}

// MethodNotAllowed: the path exists but not for this method (the api sends it as
// 405, not the 400 of its error code).
func MethodNotAllowed(method, path string) *Error {
	return newError(CodeInvalidAction, "40290", "Method "+method+" not allowed for "+path)
}

// TooManyStreams: a live journal stream past the number that may be open at once
// (the api answers it 429) [SB].
func TooManyStreams(limit int) *Error {
	return newError(CodeInvalidAction, "40290",
		fmt.Sprintf("Too many live journal streams: at most %d may be open at once", limit))
}

// DownstreamFailure: the failure GP reports when a system behind it fails.
func DownstreamFailure() *Error {
	return newError(CodeSystemErrorDownstream, "50046",
		"Unable to process your request due to an error with a system down stream.")
}

// SystemError: the sandbox itself failed. The cause is logged, never shown.
func SystemError() *Error {
	return newError(CodeSystemError, "50000", "Unable to process your request due to an internal error.")
}

// DatabaseFileLost: the database file was deleted or replaced while the sandbox ran;
// what it writes from then on would be lost at the next start, so it writes nothing
// [SB]. rescue says where what it held was saved, and how to go on.
func DatabaseFileLost(path, rescue string) *Error {
	return newError(CodeSystemError, "50000",
		"database file "+path+" was deleted or replaced while the sandbox ran; "+rescue)
}

// Scripted is an error a scenario scripts instead of the action: any tuple the
// scenario's author chose (with the status they chose, which the api sends), the
// description defaulting to the catalogue's text.
func Scripted(code, detail, description string) *Error {
	if description == "" {
		description = CatalogueDescription(code, detail)
	}
	return newError(code, detail, description)
}

// CatalogueDescription returns the catalogue's text for an error code and detail, so
// a scenario that scripts only the code gets the same words GP would send.
func CatalogueDescription(code, detail string) string {
	for _, e := range []*Error{
		InvalidToken(), ExpiredToken(), WrongSecret(), PermissionDenied(), DownstreamFailure(),
		SystemError(), NotAdjustableStatus(), DuplicateAction("", ""), PartialReversal(),
		newError(CodeMandatoryDataMissing, "40005", "Request expects the following fields"),
		newError(CodeInvalidRequestData, "40213", "Request body contains unexpected data"),
		newError(CodeInvalidRequestData, "40041", "Merchant configuration does not exist for the following combination"),
		newError(CodeResourceNotFound, "40008", "Transaction not found at this location."),
	} {
		if e.Code == code && (detail == "" || e.Detail == detail) {
			return e.Description
		}
	}
	return ""
}

// The card-present lifecycle's tuples: GP's words where its tests show them.

// ConditionalFieldsMissing: a card with neither track data nor a complete manual entry.
func ConditionalFieldsMissing(list string) *Error {
	return newError(CodeInvalidRequestData, "40007",
		"Request expects the following conditionally mandatory fields "+list+".")
}

// SurchargeOverLimit: a surcharge above 5% of the amount (GP's detailed code; its
// error code is not shown by the SDK tests [SB]).
func SurchargeOverLimit() *Error {
	return newError(CodeInvalidRequestData, "50020", "The surcharge amount is greater than 5% of the transaction amount")
}

// InvalidCardData: card data the processor refuses (expiry, CVV length).
func InvalidCardData(description string) *Error {
	return newError(CodeInvalidRequestData, "40085", description)
}

// CVVNotNumeric: a verification whose CVV is not digits, which fails GP's downstream
// schema (the Java SDK's CreditVerify_NotNumericCVV; the leading spaces are GP's).
func CVVNotNumeric() *Error {
	return newError(CodeSystemErrorDownstream, "50018",
		"The line number 12 which contains '         [number] XXX [/number] ' does not conform to the schema")
}

// RefundNotReauthorizable: a reauthorization of a refund, in any status (the Java
// SDK's CreditCardReauthorizeTransaction_Refund).
func RefundNotReauthorizable() *Error {
	return newError(CodeInvalidRequestData, "40213", "An error occurred on the server.")
}

// OfflinePINRefund: a chip refund carrying a PIN block.
func OfflinePINRefund() *Error {
	return newError(CodeInvalidRequestData, "40029",
		"34,Transaction rejected because the provided data was invalid. Online PINBlock Authentication not supported on offline transaction.")
}

// DownstreamProcessingError: GP's processing-error test cards (the Java and .NET
// SDKs' wording; the Node SDK's tests expect a 205 timeout text instead).
func DownstreamProcessingError() *Error {
	return newError(CodeSystemErrorDownstream, "50013", "200,eCom error—Developers are notified")
}

// CardNotSupported: a card type GP does not process (GP's trailing space included).
func CardNotSupported() *Error {
	return newError(CodeInvalidRequestData, "50020", "Transaction not supported Please contact support ")
}

// NotInStatus: the operation is not allowed in the transaction's status, e.g.
// "Cannot PROCESS Capture over a transaction that does not have a status of PREAUTHORIZED."
func NotInStatus(operation, statuses string) *Error {
	return newError(CodeInvalidAction, "40290",
		"Cannot PROCESS "+operation+" over a transaction that does not have a status of "+statuses+".")
}

// RefundOverLimit: refunds would exceed 115% of the original amount (GP's trailing
// space included).
func RefundOverLimit() *Error {
	return newError(CodeInvalidRequestData, "40087",
		"You may only refund up to 115% of the original amount ")
}

// CaptureOverLimit: a capture above 115% of the authorized amount.
func CaptureOverLimit() *Error {
	return newError(CodeInvalidRequestData, "50020",
		"Can't settle for more than 115% of that which you authorised ")
}

// AmountInsufficient: a zero amount where money must move.
func AmountInsufficient() *Error {
	return newError(CodeInvalidRequestData, "50020",
		"Zero negative or insufficient amount specified ")
}

// PartialReversal: a reversal for less than the transaction's amount.
func PartialReversal() *Error {
	return newError(CodeInvalidRequestData, "40214", "partial reversal not supported")
}

// RefundedReversal: a reversal of a transaction that has refunds not reversed: the
// money would go back twice [SB].
func RefundedReversal() *Error {
	return newError(CodeInvalidAction, "40290",
		"Cannot PROCESS Reversal over a transaction that has been refunded.")
}

// ReauthorizationOverLimit: a reauthorization above 115% of the reversed amount, the
// limit a capture has [SB].
func ReauthorizationOverLimit() *Error {
	return newError(CodeInvalidRequestData, "50020",
		"Can't reauthorize for more than 115% of the original amount ")
}

// NotReauthorizable: a reauthorization of a transaction that was not reversed, or
// that was reauthorized already.
func NotReauthorizable() *Error {
	return newError(CodeInvalidRequestData, "40044",
		"36, Invalid original transaction for reauthorization-This error is returned from a CreditAuth or CreditSale if the original transaction referenced by GatewayTxnId cannot be found. This is typically because the original does not meet the criteria for the sale or authorization by GatewayTxnID. This error can also be returned if the original transaction is found, but the card number has been written over with nulls after 30 days.")
}

// NotFoundTransactionDetail: GET /transactions/{id} of a transaction the app cannot
// see, in GP's words for that endpoint, which name the path it was asked at.
func NotFoundTransactionDetail(id, path string) *Error {
	return newError(CodeResourceNotFound, "40118", "Transactions "+id+" not found at this "+path)
}

// NotFoundAction: an action id the app has no action for, naming the path asked [GP].
func NotFoundAction(id, path string) *Error {
	return newError(CodeResourceNotFound, "40118", "Actions "+id+" not found at this "+path)
}

// NotFoundRate: a currency_conversion id the app has looked no rate up as [SB].
func NotFoundRate(id string) *Error {
	return newError(CodeResourceNotFound, "40008", "Currency conversion "+id+" not found at this location.")
}

// MerchantNameNotMatched: a merchant_name filter naming no merchant of the token [GP].
func MerchantNameNotMatched() *Error {
	return newError(CodeActionNotAuthorized, "40003", "Token does not match merchant_name in the request")
}

// InvalidFilterValue: a reporting filter with a value GP does not know.
func InvalidFilterValue(name string) *Error {
	return newError(CodeInvalidRequestData, "40097", "Invalid Value provided in the input field - "+name)
}

// AccountNotMatched: a reporting filter naming an account the token does not hold
// (answered 400, not the 403 of its error code elsewhere).
func AccountNotMatched() *Error {
	return newError(CodeActionNotAuthorized, "40003", "Token does not match account_id or account_name in the request")
}

// NotFoundBatch: a well-formed batch id the app has no batch for.
func NotFoundBatch(id string) *Error {
	return newError(CodeResourceNotFound, "40118", "Batch "+id+" not found at this location.")
}

// EmptyBatch: closing a batch that holds no transaction.
func EmptyBatch() *Error {
	return newError(CodeInvalidBatchAction, "40017", "9,No transaction associated with batch")
}

// BatchIDMissing: POST /batches/ without an id.
func BatchIDMissing() *Error {
	return newError(CodeMandatoryDataMissing, "40223", "Request expects the batch_id")
}

// The payment method of a request, by id, and its card's amounts.

// InvalidPaymentMethodID: a payment_method.id that is not a PMT_ id [GP: SDK tests
// VerifyTokenizedPaymentMethod_WithMalformedId]. The id is echoed masked.
func InvalidPaymentMethodID(id string) *Error {
	return newError(CodeInvalidRequestData, "40213", "payment_method.id: "+carddata.Mask(id)+" contains unexpected data")
}

// NotFoundPaymentMethod: a well-formed payment method id the app holds no token for.
func NotFoundPaymentMethod(id string) *Error {
	return newError(CodeResourceNotFound, "40116", "payment_method "+id+" not found at this location.")
}

// NotFoundPaymentMethodDetail: GET /payment-methods/{id} of a token the app cannot
// see, in GP's words for that endpoint, which name the path it was asked at.
func NotFoundPaymentMethodDetail(id, path string) *Error {
	return newError(CodeResourceNotFound, "40118", "PAYMENT_METHODS "+id+" not found at this "+path)
}

// BatchAlreadyClosed: closing a batch that is closed already, or one that holds
// declined sales only (GP's trailing space included).
func BatchAlreadyClosed() *Error {
	return newError(CodeActionFailed, "500010", "Action failed unexpectedly. Please try again ")
}

// NoBatchConfiguration: a batch close without id whose country, channel and currency
// name no open batch of the account.
func NoBatchConfiguration(country, channel, currency string) *Error {
	return newError(CodeConfigurationMissing, "40041",
		"Merchant configuration does not exist for the following combination: country - "+country+
			", channel - "+channel+", currency - "+currency)
}

// NoCNPBatchConfiguration: closing by id the batch of a card-not-present payment,
// INVALID_REQUEST_DATA as the PHP SDK's testBatchClose_CardNotPresentChannel has it.
func NoCNPBatchConfiguration(country, currency string) *Error {
	return newError(CodeInvalidRequestData, "40041",
		"Merchant configuration does not exist for the following combination: country - "+country+
			", channel - "+ChannelCNP+", currency - "+currency)
}

// TokenUsageOnlyMulti: an edit that asks a token to become single-use.
func TokenUsageOnlyMulti() *Error {
	return newError(CodeInvalidRequestData, "50020", "TokenType can only be MULTI")
}

// TokenEditMissingFields: an edit without usage mode and expiry.
func TokenEditMissingFields() *Error {
	return newError(CodeMandatoryDataMissing, "50021", "Mandatory Fields missing [card ExpDate] See Developers Guide")
}

// NoDevice: no terminal is bound to the account a MiC request goes through [SB].
func NoDevice(accountID, merchantID string) *Error {
	return newError(CodeResourceNotFound, "40118", "Device for account "+accountID+" of merchant "+merchantID+" not found at this location.")
}

// NotFoundDevice: the admin API names a terminal the sandbox does not have [SB].
func NotFoundDevice(id string) *Error {
	return newError(CodeResourceNotFound, "40118", "Device "+id+" not found at this location.")
}

// NotFoundDeviceRequest: an unknown device request [SB].
func NotFoundDeviceRequest(id string) *Error {
	return newError(CodeResourceNotFound, "40118", "Device request "+id+" not found at this location.")
}

// DeviceNotActive: the account's terminal is not active [SB].
func DeviceNotActive(id string) *Error {
	return newError(CodeInvalidAction, "40290", "Device "+id+" is not active")
}

// DeviceBusy: the terminal is still busy with an earlier command [SB].
func DeviceBusy(id, with string) *Error {
	return newError(CodeInvalidAction, "40290", "Device "+id+" is busy with "+with)
}

// TerminalQueueFull: the terminal already holds as many commands as it takes [SB].
func TerminalQueueFull(id string, limit int) *Error {
	return newError(CodeInvalidAction, "40290", fmt.Sprintf("Device %s already holds %d commands: wait for some to complete", id, limit))
}

// DeviceRequestQueued: a card presented for a command still waiting behind another [SB].
func DeviceRequestQueued(id, deviceID, head string) *Error {
	return newError(CodeInvalidAction, "40290", "Device request "+id+" is waiting behind "+head+" on device "+deviceID)
}

// DeviceRequestDone: a card presented for a command the terminal already finished [SB].
func DeviceRequestDone(id, status string) *Error {
	return newError(CodeInvalidAction, "40290", "Device request "+id+" is "+status+", not INITIATED")
}

// NothingWaiting: a customer's action on a terminal with no command waiting for the
// customer [SB].
func NothingWaiting(id string) *Error {
	return newError(CodeInvalidAction, "40290", "Device "+id+" has no command waiting for the customer")
}

// TipNotAsked: a tip chosen for a command that shows no tip screen [SB].
func TipNotAsked(id string) *Error {
	return newError(CodeInvalidAction, "40290", "Device request "+id+" asks for no tip on the terminal: only a sale without tipAmount does")
}

// TipOverBase: a tip over the base amount, which UPA's tip screen refuses (TIP005) [SB].
func TipOverBase(tip, base string) *Error {
	return InvalidFieldBecause("tip", tip+" is more than the base amount "+base)
}

// UnknownTerminalCard: a card to present that is neither a terminal test card nor a
// card number [SB]; names the cards there are.
func UnknownTerminalCard(name string) *Error {
	return InvalidFieldBecause("card", notATerminalCard(name)+" or a card number")
}

// NotATerminalCard: a terminal's default card that is not a terminal test card [SB]
// (a default card is one the terminal reads each time: no card number is kept);
// names the cards there are.
func NotATerminalCard(name string) *Error {
	return InvalidFieldBecause("card", notATerminalCard(name))
}

// notATerminalCard says that name, masked, is no terminal test card, naming them.
func notATerminalCard(name string) string {
	return carddata.Mask(name) + " is not a terminal test card (" + strings.Join(TerminalCardNames(), ", ") + ")"
}

// The settlement and dispute errors, in GP's words for each endpoint [GP: the SDKs'
// reporting and dispute tests].

// CodeInvalidDisputeAction: an acceptance or challenge GP refuses.
const CodeInvalidDisputeAction = "INVALID_DISPUTE_ACTION"

// NotFoundDeposit: GET /settlement/deposits/{id} of a deposit the app cannot see.
func NotFoundDeposit(id, path string) *Error {
	return newError(CodeResourceNotFound, "40118", "Deposits "+id+" not found at this "+path)
}

// NotFoundSettlementDispute: GET /settlement/disputes/{id} of one the app cannot see.
func NotFoundSettlementDispute(id, path string) *Error {
	return newError(CodeResourceNotFound, "40118", "Disputes "+id+" not found at this "+path)
}

// NotFoundDispute: GET /disputes/{id} (and its documents) of a dispute the app cannot see.
func NotFoundDispute() *Error {
	return newError(CodeInvalidRequestData, "40073", "101,Unable to locate dispute record for that ID. Please recheck the ID provided.")
}

// NotFoundDisputeDocument: a document id the dispute does not hold.
func NotFoundDisputeDocument() *Error {
	return newError(CodeMandatoryDataMissing, "40071", "128,No document found, please recheck the values provided")
}

// DisputeARNNotFound: GET /disputes filtered by an arn no dispute has.
func DisputeARNNotFound() *Error {
	return newError(CodeInvalidRequestData, "40048", "105,Unable to locate dispute record for arn. Please recheck thevalue provided for arn.")
}

// DisputeNotAcceptable: accepting a dispute that is unknown or not with the merchant.
func DisputeNotAcceptable() *Error {
	return newError(CodeInvalidDisputeAction, "40067", "124,Unable to accept for that id. Please check the Case id again.")
}

// DisputeNotChallengeable: challenging a dispute that is unknown or not with the merchant.
func DisputeNotChallengeable() *Error {
	return newError(CodeInvalidDisputeAction, "40060", "117,Unable to challenge for that id. Please check the Case id again.")
}

// NoChallengeDocument: a challenge without a document.
func NoChallengeDocument() *Error {
	return newError(CodeMandatoryDataMissing, "40065", "Unable to challenge as No document provided with the request")
}

// RetrievalSingleDocument: a retrieval challenged with more than one document.
func RetrievalSingleDocument() *Error {
	return newError(CodeInvalidRequestData, "40072", "131,The dispute stage, Retrieval, can be challenged with a single document only. Please correct the request and resubmit")
}
