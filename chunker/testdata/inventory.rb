# frozen_string_literal: true

require "json"
require_relative "errors"

# Inventory tracks stock levels per warehouse.
module Inventory
  DEFAULT_WAREHOUSE = "main"

  # Item is one stocked product.
  class Item
    attr_reader :sku, :quantity

    def initialize(sku, quantity = 0)
      @sku = sku
      @quantity = quantity
    end

    # restock adds units to the item.
    def restock(units)
      raise ArgumentError, "units must be positive" unless units.positive?

      @quantity += units
      self
    end

    def to_h
      { sku: @sku, quantity: @quantity }
    end

    def self.from_h(hash)
      new(hash.fetch(:sku), hash.fetch(:quantity, 0))
    end
  end

  class Ledger
    def initialize
      @items = {}
    end

    def add(item)
      @items[item.sku] = item
    end

    def [](sku)
      @items.fetch(sku) { raise Errors::UnknownSku, sku }
    end

    def to_json(*args)
      @items.values.map(&:to_h).to_json(*args)
    end

    class << self
      def load(path)
        ledger = new
        JSON.parse(File.read(path), symbolize_names: true).each do |h|
          ledger.add(Item.from_h(h))
        end
        ledger
      end
    end
  end

  def self.version
    "1.4.0"
  end
end

def report(ledger)
  puts ledger.to_json
end

report(Inventory::Ledger.load(ARGV.fetch(0))) if $PROGRAM_NAME == __FILE__
