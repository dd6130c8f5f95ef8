// Graphs of structured grids: finite-difference stencils, bands and
// finite-element meshes, in natural order (x fastest, then y, then z). Node
// (x, y, z) of an nx × ny × nz grid is node (z · ny + y) · nx + x. No
// randomness: the same options give the same edges, in the same order.
//
// Each undirected edge once, from the smaller id to the larger, no self
// loops: symmetrising and adding a self loop per node (GCN's preparation)
// gives the matrix of the stencil or mesh, diagonal included.
#pragma once

#include <array>
#include <cstdint>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

enum class StencilShape : unsigned char {
  Cross,  // neighbours along one axis at a time: 5 points in 2D, 7 in 3D (radius 1)
  Box,    // every node within Chebyshev distance `radius`: 9 points in 2D, 27 in 3D
};

struct StencilOptions {
  std::array<int64_t, 3> grid{64, 64, 1};  // nodes along x, y, z (>= 1; 1: an unused axis)
  int64_t radius = 1;                      // reach along each axis; a 1D grid gives a band of half-width radius
  StencilShape shape = StencilShape::Cross;
};

// Entries of an interior row of the stencil's matrix, diagonal included
// (1 + 2·radius·dims for Cross, (2·radius + 1)^dims for Box; dims: axes with
// more than one node).
int64_t stencil_points(const StencilOptions& options);

// Throws InvalidArgument on bad options (a non-positive side or radius, 2^31
// or more nodes).
EdgeList generate_stencil(const StencilOptions& options);

// A mesh of nx × ny × nz Lagrange elements of order 1 (linear: 2 nodes per
// element edge, quadrilaterals/hexahedra) or 2 (quadratic: 3 nodes per element
// edge, i.e. 9-node quadrilaterals / 27-node hexahedra), with `dofs` unknowns
// per node (1: a scalar field; 2: plane elasticity; 3: solid elasticity). The
// graph has one node per unknown (the unknowns of a node consecutive): two
// unknowns are linked when their nodes share an element, so the matrix is made
// of dense dofs × dofs blocks. The node grid has order · elements + 1 nodes
// per axis; elements 0 on an axis makes the mesh lower-dimensional (a 2D mesh
// has elements[2] = 0).
struct FemMeshOptions {
  std::array<int64_t, 3> elements{16, 16, 0};
  int64_t order = 1;
  int64_t dofs = 1;
};

// Unknowns (graph nodes) of the mesh: Π (order · elements + 1) · dofs.
int64_t fem_mesh_unknowns(const FemMeshOptions& options);

// Throws InvalidArgument on bad options (order outside {1, 2}, dofs outside
// [1, 3], negative element counts, 2^31 or more unknowns).
EdgeList generate_fem_mesh(const FemMeshOptions& options);

}  // namespace sgnn::graph_io
