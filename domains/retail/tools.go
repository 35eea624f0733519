package retail

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// ItemDetails is what get_item_details returns: the variant plus the
// product it belongs to, so the agent need not look the product up.
type ItemDetails struct {
	ItemID    string            `json:"item_id"`
	Name      string            `json:"name"`
	ProductID string            `json:"product_id"`
	Options   map[string]string `json:"options"`
	Available bool              `json:"available"`
	Price     float64           `json:"price"`
}

// Toolkit builds the retail toolkit. The handlers hold no database of
// their own: every lookup goes through the episode's state, so they see
// the episode's writes and the same toolkit serves any retail Base.
func Toolkit() (*tools.Toolkit, error) {
	k, err := tools.NewToolkit(toolList())
	if err != nil {
		return nil, fmt.Errorf("retail toolkit: %w", err)
	}
	return k, nil
}

// Schema building blocks. Every schema is strict (all properties required,
// no others) so that it also works with OpenAI's strict function calling.

func object(props map[string]any, required ...string) map[string]any {
	if required == nil {
		required = []string{} // JSON null is not a valid "required"
	}
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

func str(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

func nonEmpty(desc string) map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "description": desc}
}

func strList(desc string) map[string]any {
	return map[string]any{
		"type":        "array",
		"items":       map[string]any{"type": "string", "minLength": 1},
		"minItems":    1,
		"description": desc,
	}
}

const (
	descOrderID   = "The order id, such as '#W0000000'. Note the '#' at the beginning."
	descUserID    = "The user id, such as 'sara_doe_4961'."
	descProductID = "The product id, such as '6086499569'. A product id is not an item id."
	descItemID    = "The item id, such as '1008292230'. An item id is not a product id."
	descPayment   = "The id of one of the user's payment methods, such as 'gift_card_0000000' or 'credit_card_0000000', as listed in the user's details."
	confirmNote   = " Before calling, list the details of the action to the user and obtain an explicit 'yes'."
)

func addressProps(first string, firstDesc string) map[string]any {
	return map[string]any{
		first:      nonEmpty(firstDesc),
		"address1": nonEmpty("The first line of the address, such as '123 Main Street'."),
		"address2": str("The second line of the address, such as 'Apt 1' or 'Suite 200'; an empty string if there is none."),
		"city":     nonEmpty("The city, such as 'San Francisco'."),
		"state":    nonEmpty("The two-letter state code, such as 'CA'."),
		"country":  nonEmpty("The country, such as 'USA'."),
		"zip":      nonEmpty("The zip code, such as '94105'."),
	}
}

func toolList() []*tools.Tool {
	addr := func(first string) []string {
		return []string{first, "address1", "address2", "city", "state", "country", "zip"}
	}
	return []*tools.Tool{
		{
			Name:        "find_user_id_by_email",
			Kind:        record.KindRead,
			Description: "Find a user's id by their email address. This is the default way to authenticate a user. Returns the user id, or an error if no user has this email.",
			Parameters:  object(map[string]any{"email": nonEmpty("The user's email, such as 'jane.doe1234@example.com'.")}, "email"),
			Handler:     findUserByEmail,
		},
		{
			Name:        "find_user_id_by_name_zip",
			Kind:        record.KindRead,
			Description: "Find a user's id by first name, last name and the zip code of their current address. Use it only when the user cannot provide an email or the email lookup fails. Returns the user id, or an error if no user matches.",
			Parameters: object(map[string]any{
				"first_name": nonEmpty("The user's first name, such as 'Jane'."),
				"last_name":  nonEmpty("The user's last name, such as 'Doe'."),
				"zip":        nonEmpty("The zip code of the user's address, such as '94105'."),
			}, "first_name", "last_name", "zip"),
			Handler: findUserByNameZip,
		},
		{
			Name:        "get_user_details",
			Kind:        record.KindRead,
			Description: "Get a user's details: name, address, email, payment methods (with gift card balances) and the ids of their orders, oldest first.",
			Parameters:  object(map[string]any{"user_id": nonEmpty(descUserID)}, "user_id"),
			Handler:     getUserDetails,
		},
		{
			Name:        "get_order_details",
			Kind:        record.KindRead,
			Description: "Get an order's status and details: items with their item ids, options and prices, shipping address, fulfillments with tracking ids, and payment history.",
			Parameters:  object(map[string]any{"order_id": nonEmpty(descOrderID)}, "order_id"),
			Handler:     getOrderDetails,
		},
		{
			Name:        "get_product_details",
			Kind:        record.KindRead,
			Description: "Get a product's inventory: every variant (item) with its item id, options, price and whether it is available.",
			Parameters:  object(map[string]any{"product_id": nonEmpty(descProductID)}, "product_id"),
			Handler:     getProductDetails,
		},
		{
			Name:        "get_item_details",
			Kind:        record.KindRead,
			Description: "Get one item (a product variant) by item id: its options, price and availability, plus the name and id of its product.",
			Parameters:  object(map[string]any{"item_id": nonEmpty(descItemID)}, "item_id"),
			Handler:     getItemDetails,
		},
		{
			Name:        "list_all_product_types",
			Kind:        record.KindRead,
			Description: "List the name and product id of every product type the store sells (50 in all), as an object mapping product names to product ids. Each product type has several items (variants) with different options.",
			Parameters:  object(map[string]any{}),
			Handler:     listProductTypes,
		},
		{
			Name: "cancel_pending_order",
			Kind: record.KindWrite,
			Description: "Cancel a pending order. Only orders with status 'pending' can be cancelled; processed, delivered or modified orders cannot. " +
				"The order becomes 'cancelled' and its payments are refunded: at once to a gift card, otherwise within 5-7 business days. Returns the updated order." + confirmNote,
			Parameters: object(map[string]any{
				"order_id": nonEmpty(descOrderID),
				"reason": map[string]any{
					"type":        "string",
					"enum":        []string{ReasonNoLongerNeeded, ReasonMistake},
					"description": "Why the user cancels: 'no longer needed' or 'ordered by mistake'.",
				},
			}, "order_id", "reason"),
			Handler: cancelPendingOrder,
		},
		{
			Name:        "modify_pending_order_address",
			Kind:        record.KindWrite,
			Description: "Change the shipping address of a pending order. Returns the updated order." + confirmNote,
			Parameters:  object(addressProps("order_id", descOrderID), addr("order_id")...),
			Handler:     modifyPendingOrderAddress,
		},
		{
			Name: "modify_pending_order_items",
			Kind: record.KindWrite,
			Description: "Replace items of a pending order with other items (variants) of the same product, e.g. a different size or color. " +
				"This can be done only once per order: afterwards the status is 'pending (item modified)' and the order's items can no longer be modified and the order can no longer be cancelled, so collect every item to change first. " +
				"The price difference is charged to, or refunded to, the given payment method; a gift card must cover a charge. Returns the updated order." + confirmNote,
			Parameters: object(map[string]any{
				"order_id":          nonEmpty(descOrderID),
				"item_ids":          strList("The item ids to replace, such as ['1008292230']."),
				"new_item_ids":      strList("The new item ids, one for each entry of item_ids, in the same order; each must be an available item of the same product."),
				"payment_method_id": nonEmpty(descPayment + " It pays or receives the price difference."),
			}, "order_id", "item_ids", "new_item_ids", "payment_method_id"),
			Handler: modifyPendingOrderItems,
		},
		{
			Name: "modify_pending_order_payment",
			Kind: record.KindWrite,
			Description: "Change the payment method of a pending order. The full amount is charged to the new method and refunded to the old one; a gift card must have enough balance. " +
				"The new method must differ from the current one. Returns the updated order." + confirmNote,
			Parameters: object(map[string]any{
				"order_id":          nonEmpty(descOrderID),
				"payment_method_id": nonEmpty(descPayment),
			}, "order_id", "payment_method_id"),
			Handler: modifyPendingOrderPayment,
		},
		{
			Name:        "modify_user_address",
			Kind:        record.KindWrite,
			Description: "Change a user's default address. Existing orders keep their shipping address. Returns the updated user." + confirmNote,
			Parameters:  object(addressProps("user_id", descUserID), addr("user_id")...),
			Handler:     modifyUserAddress,
		},
		{
			Name: "return_delivered_order_items",
			Kind: record.KindWrite,
			Description: "Request the return of items of a delivered order. The status becomes 'return requested' and the user receives an email on how to ship the items back. " +
				"The refund goes to the original payment method or to one of the user's gift cards. Returns the updated order." + confirmNote,
			Parameters: object(map[string]any{
				"order_id":          nonEmpty(descOrderID),
				"item_ids":          strList("The item ids to return, such as ['1008292230']."),
				"payment_method_id": nonEmpty(descPayment + " It receives the refund and must be the order's original payment method or a gift card."),
			}, "order_id", "item_ids", "payment_method_id"),
			Handler: returnDeliveredOrderItems,
		},
		{
			Name: "exchange_delivered_order_items",
			Kind: record.KindWrite,
			Description: "Request the exchange of items of a delivered order for other items (variants) of the same product. The status becomes 'exchange requested'; " +
				"the price difference is charged to, or refunded to, the given payment method, and a gift card must cover a charge. Collect every item to exchange first: this can be done only once per order. Returns the updated order." + confirmNote,
			Parameters: object(map[string]any{
				"order_id":          nonEmpty(descOrderID),
				"item_ids":          strList("The item ids to exchange, such as ['1008292230']."),
				"new_item_ids":      strList("The new item ids, one for each entry of item_ids, in the same order; each must be an available item of the same product."),
				"payment_method_id": nonEmpty(descPayment + " It pays or receives the price difference."),
			}, "order_id", "item_ids", "new_item_ids", "payment_method_id"),
			Handler: exchangeDeliveredOrderItems,
		},
		{
			Name:        "calculate",
			Kind:        record.KindGeneric,
			Description: "Evaluate an arithmetic expression with numbers, + - * /, parentheses and spaces, such as '(129.99 + 45.5) * 2'. Returns the result rounded to 2 decimals.",
			Parameters: object(map[string]any{
				"expression": map[string]any{"type": "string", "minLength": 1, "maxLength": maxExpr, "description": "The expression to evaluate, such as '2 + 2'."},
			}, "expression"),
			Handler: func(_ context.Context, _ *tools.State, args map[string]any) (any, error) {
				e, err := tools.Str(args, "expression")
				if err != nil {
					return nil, err
				}
				return Calculate(e)
			},
		},
		{
			Name: "transfer_to_human_agents",
			Kind: record.KindGeneric,
			Description: "Transfer the user to a human agent, with a summary of their issue. Transfer only if the user explicitly asks for a human agent, " +
				"or if the request cannot be handled within the policy and the available tools. After the transfer, tell the user they are being transferred.",
			Parameters: object(map[string]any{"summary": nonEmpty("A summary of the user's issue for the human agent.")}, "summary"),
			Handler: func(_ context.Context, _ *tools.State, _ map[string]any) (any, error) {
				return "Transfer successful", nil
			},
		},
	}
}

// Lookups through the episode state.

var (
	errUserNotFound    = errors.New("user not found")
	errOrderNotFound   = errors.New("order not found")
	errProductNotFound = errors.New("product not found")
	errItemNotFound    = errors.New("item not found")
)

func getUser(st *tools.State, id string) (*User, error) {
	v, ok := st.Get(Users, id)
	if !ok {
		return nil, errUserNotFound
	}
	u, ok := v.(*User)
	if !ok {
		return nil, fmt.Errorf("user %s: unexpected record type %T", id, v)
	}
	return u, nil
}

func getOrder(st *tools.State, id string) (*Order, error) {
	v, ok := st.Get(Orders, id)
	if !ok {
		return nil, errOrderNotFound
	}
	o, ok := v.(*Order)
	if !ok {
		return nil, fmt.Errorf("order %s: unexpected record type %T", id, v)
	}
	return o, nil
}

func getProduct(st *tools.State, id string) (*Product, error) {
	v, ok := st.Get(Products, id)
	if !ok {
		return nil, errProductNotFound
	}
	p, ok := v.(*Product)
	if !ok {
		return nil, fmt.Errorf("product %s: unexpected record type %T", id, v)
	}
	return p, nil
}

// strArg reads a string argument; the schema has already checked it.
func strArg(args map[string]any, key string) string {
	s, _ := tools.Str(args, key)
	return s
}

func strsArg(args map[string]any, key string) []string {
	s, _ := tools.Strs(args, key)
	return s
}

// Read tools. Lookups scan the state rather than close over a DB index:
// a few hundred map reads cost microseconds, and a scan cannot go stale
// when an episode changes a user's address.

func findUserByEmail(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	email := strings.TrimSpace(strArg(args, "email"))
	for _, id := range st.Keys(Users) {
		u, err := getUser(st, id)
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(u.Email, email) {
			return u.UserID, nil
		}
	}
	return nil, errUserNotFound
}

func findUserByNameZip(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	first := strings.TrimSpace(strArg(args, "first_name"))
	last := strings.TrimSpace(strArg(args, "last_name"))
	zip := strings.TrimSpace(strArg(args, "zip"))
	for _, id := range st.Keys(Users) {
		u, err := getUser(st, id)
		if err != nil {
			return nil, err
		}
		if u.Address.Zip == zip && strings.EqualFold(u.Name.FirstName, first) && strings.EqualFold(u.Name.LastName, last) {
			return u.UserID, nil
		}
	}
	return nil, errUserNotFound
}

func getUserDetails(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	return getUser(st, strArg(args, "user_id"))
}

func getOrderDetails(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	return getOrder(st, strArg(args, "order_id"))
}

func getProductDetails(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	return getProduct(st, strArg(args, "product_id"))
}

func getItemDetails(_ context.Context, st *tools.State, args map[string]any) (any, error) {
	id := strArg(args, "item_id")
	for _, pid := range st.Keys(Products) {
		p, err := getProduct(st, pid)
		if err != nil {
			return nil, err
		}
		if v, ok := p.Variants[id]; ok {
			return ItemDetails{
				ItemID:    v.ItemID,
				Name:      p.Name,
				ProductID: p.ProductID,
				Options:   v.Options,
				Available: v.Available,
				Price:     v.Price,
			}, nil
		}
	}
	return nil, errItemNotFound
}

func listProductTypes(_ context.Context, st *tools.State, _ map[string]any) (any, error) {
	out := make(map[string]string)
	for _, pid := range st.Keys(Products) {
		p, err := getProduct(st, pid)
		if err != nil {
			return nil, err
		}
		out[p.Name] = p.ProductID
	}
	return out, nil
}
