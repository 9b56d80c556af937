//! A uniform grid over the area, cell side ≥ the interference range, so all
//! nodes that can hear a sender lie in the 3 × 3 cells around it. The cost of
//! a query grows with local density, not with the number of nodes.

use super::Pos;

#[derive(Debug, Clone)]
pub struct SpatialGrid {
    cell_m: f64,
    cols: usize,
    rows: usize,
    cells: Vec<Vec<u32>>,
    /// Cell index of each node, to move nodes without searching.
    cell_of: Vec<usize>,
}

impl SpatialGrid {
    /// A grid covering `width_m × height_m` (positions outside are clamped to
    /// the border cells) with cells of side `cell_m`.
    pub fn new(width_m: f64, height_m: f64, cell_m: f64) -> Self {
        let cell_m = cell_m.max(1.0);
        let cols = ((width_m / cell_m).ceil() as usize).clamp(1, 1 << 16);
        let rows = ((height_m / cell_m).ceil() as usize).clamp(1, 1 << 16);
        // Cells must still cover the area when clamped.
        let cell_m = cell_m
            .max(width_m / cols as f64)
            .max(height_m / rows as f64);
        Self {
            cell_m,
            cols,
            rows,
            cells: vec![Vec::new(); cols * rows],
            cell_of: Vec::new(),
        }
    }

    fn cell_coords(&self, p: Pos) -> (usize, usize) {
        let cx = ((p.x / self.cell_m).floor().max(0.0) as usize).min(self.cols - 1);
        let cy = ((p.y / self.cell_m).floor().max(0.0) as usize).min(self.rows - 1);
        (cx, cy)
    }

    /// Inserts node `id` (ids must be inserted densely from 0) at `p`.
    pub fn insert(&mut self, id: u32, p: Pos) {
        let (cx, cy) = self.cell_coords(p);
        let c = cy * self.cols + cx;
        self.cells[c].push(id);
        if self.cell_of.len() <= id as usize {
            self.cell_of.resize(id as usize + 1, usize::MAX);
        }
        self.cell_of[id as usize] = c;
    }

    /// Moves node `id` to `p` (O(cell population)).
    pub fn update(&mut self, id: u32, p: Pos) {
        let (cx, cy) = self.cell_coords(p);
        let c = cy * self.cols + cx;
        let old = self.cell_of[id as usize];
        if old != c {
            if let Some(i) = self.cells[old].iter().position(|&n| n == id) {
                self.cells[old].swap_remove(i);
            }
            self.cells[c].push(id);
            self.cell_of[id as usize] = c;
        }
    }

    /// Calls `f` for every node in the 3 × 3 block of cells around `p`
    /// (a superset of the nodes within `cell_m` of `p`), in a deterministic order.
    #[inline]
    pub fn for_each_near(&self, p: Pos, mut f: impl FnMut(u32)) {
        let (cx, cy) = self.cell_coords(p);
        let x0 = cx.saturating_sub(1);
        let x1 = (cx + 1).min(self.cols - 1);
        let y0 = cy.saturating_sub(1);
        let y1 = (cy + 1).min(self.rows - 1);
        for y in y0..=y1 {
            for x in x0..=x1 {
                for &id in &self.cells[y * self.cols + x] {
                    f(id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Rng, Stream};

    #[test]
    fn finds_every_node_within_range() {
        let mut rng = Rng::new(5, Stream::Test, 0);
        let pts: Vec<Pos> = (0..500)
            .map(|_| Pos::new(rng.range(0.0, 3000.0), rng.range(0.0, 2000.0)))
            .collect();
        let range = 550.0;
        let mut g = SpatialGrid::new(3000.0, 2000.0, range);
        for (i, p) in pts.iter().enumerate() {
            g.insert(i as u32, *p);
        }
        for p in pts.iter().take(50) {
            let mut found = Vec::new();
            g.for_each_near(*p, |id| found.push(id));
            for (j, q) in pts.iter().enumerate() {
                if p.distance(q) <= range {
                    assert!(found.contains(&(j as u32)));
                }
            }
            assert!(
                found.len() < pts.len(),
                "the query must not return everyone"
            );
        }
    }

    #[test]
    fn update_moves_node_between_cells() {
        let mut g = SpatialGrid::new(2000.0, 2000.0, 500.0);
        g.insert(0, Pos::new(10.0, 10.0));
        g.update(0, Pos::new(1900.0, 1900.0));
        let mut near_origin = Vec::new();
        g.for_each_near(Pos::new(0.0, 0.0), |id| near_origin.push(id));
        assert!(near_origin.is_empty());
        let mut near_corner = Vec::new();
        g.for_each_near(Pos::new(1999.0, 1999.0), |id| near_corner.push(id));
        assert_eq!(near_corner, vec![0]);
    }
}
