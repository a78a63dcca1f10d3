//! [`Array`]: the storage of one array of an [`super::OwnedProblem`]. It is a `Vec` unless a
//! host lent it memory of its own (an isolated solver's shared mapping, so the pressure node
//! assembles straight into the memory the solver child reads and nothing is copied per solve).
//! Either way it reads and writes as a slice; growing or shrinking a lent array moves it back
//! to the heap, so lending is only ever a fast path, never a change of meaning.

use std::any::Any;
use std::ptr::NonNull;
use std::sync::Arc;

/// One array of a problem: heap-owned, or lent by a host (see the module doc).
pub struct Array<T> {
    storage: Storage<T>,
}

enum Storage<T> {
    Heap(Vec<T>),
    Lent {
        ptr: NonNull<T>,
        len: usize,
        /// Keeps the memory behind `ptr` alive.
        _owner: Arc<dyn Any + Send + Sync>,
    },
}

// SAFETY: a lent array is the only handle to its memory (the contract of `Array::lent`), kept
// alive by `_owner`, so it moves and shares between threads exactly like a `Vec<T>`.
unsafe impl<T: Send> Send for Array<T> {}
// SAFETY: as above: `&Array<T>` gives only `&[T]`.
unsafe impl<T: Sync> Sync for Array<T> {}

impl<T: Copy> Array<T> {
    /// An array over `len` elements at `ptr`, which `owner` keeps alive; the contents are
    /// whatever the memory holds.
    ///
    /// # Safety
    /// `ptr` is aligned for `T`, valid for reads and writes of `len` elements of `T` (any bit
    /// pattern being a valid `T`) for as long as `owner` lives, and no other reference or
    /// array of this process uses that memory while the array lives.
    pub unsafe fn lent(ptr: NonNull<T>, len: usize, owner: Arc<dyn Any + Send + Sync>) -> Self {
        Self {
            storage: Storage::Lent {
                ptr,
                len,
                _owner: owner,
            },
        }
    }

    /// Whether the array lives in lent memory.
    pub fn is_lent(&self) -> bool {
        matches!(self.storage, Storage::Lent { .. })
    }

    /// Resizes to `n` elements, new ones `value` (a lent array of another length moves to the
    /// heap).
    pub fn resize(&mut self, n: usize, value: T) {
        if self.len() == n {
            return;
        }
        let mut v = self.take_vec();
        v.resize(n, value);
        self.storage = Storage::Heap(v);
    }

    /// Makes the contents equal to `src` (in place when the lengths agree).
    pub fn assign(&mut self, src: &[T]) {
        if self.len() == src.len() {
            self.copy_from_slice(src);
        } else {
            self.storage = Storage::Heap(src.to_vec());
        }
    }

    /// The elements as a `Vec` (a copy when lent).
    pub fn into_vec(mut self) -> Vec<T> {
        self.take_vec()
    }

    fn take_vec(&mut self) -> Vec<T> {
        match &mut self.storage {
            Storage::Heap(v) => std::mem::take(v),
            Storage::Lent { .. } => self.to_vec(),
        }
    }
}

impl<T> std::ops::Deref for Array<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.storage {
            Storage::Heap(v) => v,
            // SAFETY: the contract of `Array::lent`.
            Storage::Lent { ptr, len, .. } => unsafe {
                std::slice::from_raw_parts(ptr.as_ptr(), *len)
            },
        }
    }
}

impl<T> std::ops::DerefMut for Array<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.storage {
            Storage::Heap(v) => v,
            // SAFETY: the contract of `Array::lent`; `&mut self` makes this the only use.
            Storage::Lent { ptr, len, .. } => unsafe {
                std::slice::from_raw_parts_mut(ptr.as_ptr(), *len)
            },
        }
    }
}

impl<T> Default for Array<T> {
    fn default() -> Self {
        Self {
            storage: Storage::Heap(Vec::new()),
        }
    }
}

impl<T> From<Vec<T>> for Array<T> {
    fn from(v: Vec<T>) -> Self {
        Self {
            storage: Storage::Heap(v),
        }
    }
}

impl<T: Clone> From<&[T]> for Array<T> {
    fn from(v: &[T]) -> Self {
        v.to_vec().into()
    }
}

impl<T> FromIterator<T> for Array<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        iter.into_iter().collect::<Vec<T>>().into()
    }
}

/// A clone is always heap-owned.
impl<T: Clone> Clone for Array<T> {
    fn clone(&self) -> Self {
        self[..].to_vec().into()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self[..].fmt(f)
    }
}

impl<T: PartialEq> PartialEq for Array<T> {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for Array<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self[..] == other[..]
    }
}

impl<'a, T> IntoIterator for &'a Array<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Array<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_array_reads_and_writes_the_lent_memory_and_moves_to_the_heap_to_grow() {
        let owner = Arc::new(std::sync::Mutex::new(vec![1.0f32, 2.0, 3.0]));
        let ptr = NonNull::new(owner.lock().unwrap().as_mut_ptr()).unwrap();
        // SAFETY: the Vec behind the mutex is not touched while the array lives.
        let mut a = unsafe { Array::lent(ptr, 3, owner.clone()) };
        assert!(a.is_lent());
        a[1] = 5.0;
        a.assign(&[7.0, 8.0, 9.0]);
        assert!(a.is_lent());
        assert_eq!(a.as_ptr(), ptr.as_ptr());
        let copy = a.clone();
        assert!(!copy.is_lent());
        a.resize(4, 0.0);
        assert!(!a.is_lent());
        assert_eq!(&a[..], &[7.0, 8.0, 9.0, 0.0]);
        assert_eq!(*owner.lock().unwrap(), vec![7.0, 8.0, 9.0]);
        assert_eq!(copy.into_vec(), vec![7.0, 8.0, 9.0]);
    }
}
