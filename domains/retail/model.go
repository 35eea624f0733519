package retail

// Collections of the retail database.
const (
	Users    = "users"
	Orders   = "orders"
	Products = "products"
)

// Order statuses.
const (
	StatusPending           = "pending"
	StatusProcessed         = "processed"
	StatusDelivered         = "delivered"
	StatusCancelled         = "cancelled"
	StatusPendingModified   = "pending (item modified)"
	StatusReturnRequested   = "return requested"
	StatusExchangeRequested = "exchange requested"
)

// PersonName is a person's name. (The type is not called Name because
// that identifier is the domain's name constant.)
type PersonName struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// Address is a postal address.
type Address struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	City     string `json:"city"`
	Country  string `json:"country"`
	State    string `json:"state"`
	Zip      string `json:"zip"`
}

// PaymentMethod is a card, a gift card (with a balance) or a PayPal account.
type PaymentMethod struct {
	Source   string   `json:"source"` // credit_card | gift_card | paypal
	ID       string   `json:"id"`
	Brand    string   `json:"brand,omitempty"`
	LastFour string   `json:"last_four,omitempty"`
	Balance  *float64 `json:"balance,omitempty"`
}

// User is a customer account.
type User struct {
	UserID         string                   `json:"user_id"`
	Name           PersonName               `json:"name"`
	Address        Address                  `json:"address"`
	Email          string                   `json:"email"`
	PaymentMethods map[string]PaymentMethod `json:"payment_methods"`
	Orders         []string                 `json:"orders"`
}

// Variant is one purchasable item of a product.
type Variant struct {
	ItemID    string            `json:"item_id"`
	Options   map[string]string `json:"options"`
	Available bool              `json:"available"`
	Price     float64           `json:"price"`
}

// Product is a product type with its variants.
type Product struct {
	Name      string             `json:"name"`
	ProductID string             `json:"product_id"`
	Variants  map[string]Variant `json:"variants"`
}

// OrderItem is one line of an order.
type OrderItem struct {
	Name      string            `json:"name"`
	ProductID string            `json:"product_id"`
	ItemID    string            `json:"item_id"`
	Price     float64           `json:"price"`
	Options   map[string]string `json:"options"`
}

// Fulfillment is a shipment.
type Fulfillment struct {
	TrackingID []string `json:"tracking_id"`
	ItemIDs    []string `json:"item_ids"`
}

// Payment is a payment or refund transaction.
type Payment struct {
	TransactionType string  `json:"transaction_type"` // payment | refund
	Amount          float64 `json:"amount"`
	PaymentMethodID string  `json:"payment_method_id"`
}

// Order is a customer order.
type Order struct {
	OrderID        string        `json:"order_id"`
	UserID         string        `json:"user_id"`
	CreatedAt      string        `json:"created_at"` // "2024-05-01T10:23:00", before the fixed clock
	Address        Address       `json:"address"`
	Items          []OrderItem   `json:"items"`
	Fulfillments   []Fulfillment `json:"fulfillments"`
	Status         string        `json:"status"`
	PaymentHistory []Payment     `json:"payment_history"`
	CancelReason   string        `json:"cancel_reason,omitempty"`
	// Set by return and exchange requests.
	ReturnItems       []string `json:"return_items,omitempty"`
	ExchangeItems     []string `json:"exchange_items,omitempty"`
	ExchangeNewItems  []string `json:"exchange_new_items,omitempty"`
	ExchangePriceDiff *float64 `json:"exchange_price_difference,omitempty"`
	// ExchangePaymentMethodID pays or receives the exchange's price
	// difference; without it, exchanges that differ only in the payment
	// method chosen would leave equal states.
	ExchangePaymentMethodID string `json:"exchange_payment_method_id,omitempty"`
	RefundMethodID          string `json:"return_payment_method_id,omitempty"`
}
