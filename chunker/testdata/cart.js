// Shopping cart model shared by the storefront and the checkout service.
import { formatPrice } from "./money.js";
import EventEmitter from "events";

const TAX_RATE = 0.2;

/**
 * A line item in the cart.
 */
class LineItem {
  constructor(sku, price, qty = 1) {
    this.sku = sku;
    this.price = price;
    this.qty = qty;
  }

  get total() {
    return this.price * this.qty;
  }
}

export class Cart extends EventEmitter {
  #items = new Map();

  /** add puts qty units of sku into the cart. */
  add(sku, price, qty = 1) {
    const existing = this.#items.get(sku);
    if (existing) {
      existing.qty += qty;
    } else {
      this.#items.set(sku, new LineItem(sku, price, qty));
    }
    this.emit("change", this);
  }

  remove(sku) {
    this.#items.delete(sku);
    this.emit("change", this);
  }

  subtotal() {
    let sum = 0;
    for (const item of this.#items.values()) {
      sum += item.total;
    }
    return sum;
  }

  static fromJSON(json) {
    const cart = new Cart();
    for (const { sku, price, qty } of JSON.parse(json)) {
      cart.add(sku, price, qty);
    }
    return cart;
  }
}

// withTax adds VAT to an amount.
export const withTax = (amount) => amount * (1 + TAX_RATE);

export function receipt(cart) {
  const lines = [];
  lines.push(`Subtotal: ${formatPrice(cart.subtotal())}`);
  lines.push(`Total: ${formatPrice(withTax(cart.subtotal()))}`);
  return lines.join("\n");
}

function* skus(cart) {
  yield* cart.items.keys();
}

export default function createCart() {
  return new Cart();
}

if (typeof window !== "undefined") {
  window.Cart = Cart;
}
