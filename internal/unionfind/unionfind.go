// Package unionfind is a disjoint-set forest over the integers 0..n-1,
// the one that component splitting, hard-clause blocks and count plans
// share. Linking is left to the caller (f[root] = other root), so each
// caller keeps its own rule for which root survives, and with it the
// numbering of its components.
package unionfind

// Forest is a disjoint-set forest: f[a] is the parent of a, and a root is
// its own parent.
type Forest[T ~int32 | ~int] []T

// New returns n singletons.
func New[T ~int32 | ~int](n int) Forest[T] {
	f := make(Forest[T], n)
	for i := range f {
		f[i] = T(i)
	}
	return f
}

// Find returns the root of a's set, halving the path on the way.
func (f Forest[T]) Find(a T) T {
	for f[a] != a {
		f[a] = f[f[a]]
		a = f[a]
	}
	return a
}
