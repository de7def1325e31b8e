//! Parts of the differential test that wait for fixes in flight (#54); filled in below.
