; A 2-D dielectric waveguide driven by a continuous source (MPI: the cell is split into one
; chunk per rank, fields exchanged every time step, the final Ez written with parallel HDF5).
(set! geometry-lattice (make lattice (size 16 8 no-size)))
(set! geometry (list (make block (center 0 0) (size infinity 1 infinity)
                      (material (make dielectric (epsilon 12))))))
(set! sources (list (make source (src (make continuous-src (frequency 0.15)))
                     (component Ez) (center -7 0))))
(set! pml-layers (list (make pml (thickness 1.0))))
(set! resolution 10)
(run-until 200 (at-end output-efield-z))
(print "Ez at (5,0): " (get-field-point Ez (vector3 5 0)) "\n")
(print "Ez at (0,2): " (get-field-point Ez (vector3 0 2)) "\n")
