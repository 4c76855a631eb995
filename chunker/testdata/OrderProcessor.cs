using System;
using System.Collections.Generic;
using System.Linq;

namespace Shop.Orders
{
    /// <summary>
    /// Processes incoming orders.
    /// </summary>
    public class OrderProcessor
    {
        private readonly IPaymentGateway _gateway;
        private readonly List<Order> _processed = new();

        public OrderProcessor(IPaymentGateway gateway)
        {
            _gateway = gateway ?? throw new ArgumentNullException(nameof(gateway));
        }

        public int ProcessedCount => _processed.Count;

        /// <summary>Charges the order and records it.</summary>
        public bool Process(Order order)
        {
            if (order.Lines.Count == 0)
            {
                return false;
            }
            var total = order.Lines.Sum(l => l.Price * l.Quantity);
            if (!_gateway.Charge(order.CustomerId, total))
            {
                return false;
            }
            _processed.Add(order);
            return true;
        }

        [Obsolete("Use Process")]
        public void Handle(Order order) => Process(order);
    }

    public interface IPaymentGateway
    {
        bool Charge(string customerId, decimal amount);
    }

    public record Order(string CustomerId, List<OrderLine> Lines);

    public readonly struct OrderLine
    {
        public OrderLine(decimal price, int quantity)
        {
            Price = price;
            Quantity = quantity;
        }

        public decimal Price { get; }
        public int Quantity { get; }
    }

    public enum OrderState
    {
        New,
        Paid,
        Shipped,
    }
}
