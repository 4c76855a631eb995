// matrix.cpp - dense row-major matrices.
#include <cassert>
#include <iostream>
#include <vector>

namespace linalg {

/// Matrix is a dense row-major matrix of doubles.
class Matrix {
public:
    Matrix(std::size_t rows, std::size_t cols);

    double& at(std::size_t r, std::size_t c) { return data_[r * cols_ + c]; }
    double at(std::size_t r, std::size_t c) const { return data_[r * cols_ + c]; }

    std::size_t rows() const { return rows_; }
    std::size_t cols() const { return cols_; }

    Matrix operator*(const Matrix& other) const;

private:
    std::size_t rows_, cols_;
    std::vector<double> data_;
};

Matrix::Matrix(std::size_t rows, std::size_t cols)
    : rows_(rows), cols_(cols), data_(rows * cols, 0.0) {}

// operator* multiplies two matrices; the inner dimensions must agree.
Matrix Matrix::operator*(const Matrix& other) const {
    assert(cols_ == other.rows_);
    Matrix out(rows_, other.cols_);
    for (std::size_t i = 0; i < rows_; ++i)
        for (std::size_t k = 0; k < cols_; ++k)
            for (std::size_t j = 0; j < other.cols_; ++j)
                out.at(i, j) += at(i, k) * other.at(k, j);
    return out;
}

struct Shape {
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

template <typename T>
T clamp(T v, T lo, T hi) {
    return v < lo ? lo : (hi < v ? hi : v);
}

template <typename T>
class Stack {
public:
    void push(const T& v) { items_.push_back(v); }
    T pop();

private:
    std::vector<T> items_;
};

template <typename T>
T Stack<T>::pop() {
    T v = items_.back();
    items_.pop_back();
    return v;
}

enum class Axis { X, Y };

}  // namespace linalg

int main() {
    linalg::Matrix m(2, 2);
    m.at(0, 0) = 1;
    std::cout << m.rows() << "x" << m.cols() << "\n";
    return 0;
}
