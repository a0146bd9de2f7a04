# H2 as in h2.py with 8 bands, the states split over 2 ranks of each domain
# (band parallelization) and the subspace diagonalization done by ScaLAPACK (BLACS grids).
from ase import Atoms
from gpaw import GPAW
h2 = Atoms('H2', positions=[(0, 0, 0), (0, 0, 0.74)])
h2.center(vacuum=2.5)
h2.calc = GPAW(mode='fd', xc='LDA', h=0.25, nbands=8, txt='h2-band.txt',
               parallel={'band': 2, 'sl_auto': True})
e = h2.get_potential_energy()
from gpaw.mpi import world
if world.rank == 0:
    print('energy %.4f eV' % e)
